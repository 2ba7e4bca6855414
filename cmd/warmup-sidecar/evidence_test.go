package main

import (
	"math"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/internal/fakepinot"
	"github.com/warmup-sidecar/warmup-sidecar/internal/report"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/prober"
)

// Issue 24's findings through the binary, fail-closed: the pod becomes Ready
// and the run ends warm on its evidence, well inside the budget, where it
// stayed not ready before.

// evidenceBudget is long: a warm outcome within evidenceBy is the evidence's.
const (
	evidenceBudget = 60 * time.Second
	evidenceBy     = 30 * time.Second
)

func serveFailClosed(t *testing.T, b *fakepinot.Broker, c *fakepinot.Controller, env ...string) (string, *syncBuf) {
	t.Helper()
	return serveUntilReady(t, append([]string{"WARMUP_BROKER_URL=" + b.URL(), "WARMUP_CONTROLLER_URL=" + c.URL(),
		"WARMUP_FAIL_CLOSED=true", "WARMUP_BUDGET=" + evidenceBudget.String()}, env...)...)
}

func newCluster(t *testing.T) (*fakepinot.Broker, *fakepinot.Controller) {
	b, c := fakepinot.NewThreeServerCluster()
	t.Cleanup(func() { b.Close(); c.Close() })
	return b, c
}

// warmOnEvidence checks the run ended warm by convergence, not by the budget.
func warmOnEvidence(t *testing.T, addr string) {
	t.Helper()
	st := status(t, addr)
	if st.Outcome != "warm" || !strings.Contains(st.ExitReason, "latency flat") {
		t.Fatalf("outcome %q (%s), want warm by convergence; decided %q", st.Outcome, st.ExitReason, st.Decided)
	}
	if st.DurationSeconds <= 0 || st.DurationSeconds > evidenceBy.Seconds() {
		t.Errorf("the run took %.1fs of a %s budget: the evidence should end it", st.DurationSeconds, evidenceBudget)
	}
}

// HIGH 1: a broker started without the multi-stage engine (error 450) has no
// engine to warm: no multi-stage probes, the run judged on the single-stage
// shapes; /status and plan say why.
func TestServeBrokerWithoutTheMultiStageEngine(t *testing.T) {
	b, c := newCluster(t)
	b.SetMultiStage(fakepinot.MultiStageDisabled)
	addr, logs := serveFailClosed(t, b, c)
	warmOnEvidence(t, addr)
	st := status(t, addr)
	if st.MultiStage == nil || st.MultiStage.MultiStage || !strings.Contains(st.MultiStage.Found, "multi-stage engine is not enabled (error 450") {
		t.Errorf("multi_stage %+v, want none, saying the engine is not enabled", st.MultiStage)
	}
	for _, s := range st.Shapes {
		if strings.HasPrefix(s.Shape, "mse_") || s.Pooled {
			t.Errorf("multi-stage shape %+v on a broker without the engine", s)
		}
	}
	if _, has := st.Engines["multi_stage"]; has || len(st.DroppedQueries) != 0 {
		t.Errorf("engines %+v, dropped %+v: want no multi-stage share and nothing dropped", st.Engines, st.DroppedQueries)
	}
	if !strings.Contains(st.Decided, "no multi-stage probes: the broker's multi-stage engine is not enabled") {
		t.Errorf("decided %q", st.Decided)
	}
	// The early query and the run's detection; never a probe.
	if n := b.QueriesOf(prober.MultiStageSQL); n > 2 {
		t.Errorf("%d multi-stage SELECT 1 sent to a broker without the engine", n)
	}
	if !strings.Contains(logs.String(), "multi-stage engine is not enabled") {
		t.Errorf("the logs do not say the engine is not enabled:\n%s", logs.String())
	}

	cmd := exec.Command(binary(t), "plan")
	cmd.Env = cleanEnv("WARMUP_BROKER_URL="+b.URL(), "WARMUP_CONTROLLER_URL="+c.URL())
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "multi-stage engine: the broker's multi-stage engine is not enabled") ||
		strings.Contains(string(out), "useMultistageEngine") {
		t.Errorf("plan (%v):\n%s\nwant it to say the engine is not enabled and list no multi-stage probe", err, out)
	}
}

// HIGH 2: a shape that fails at execution on every table (error 200) is
// dropped with its last error, shown in /status, and the run converges on the
// shapes that answer.
func TestServeShapeThatNeverSucceeds(t *testing.T) {
	b, c := newCluster(t)
	b.SetAnswer(func(sql string) (int, string) {
		if strings.Contains(sql, "PERCENTILE(") {
			return 200, fakepinot.Error(200, "QueryExecutionError", "java.lang.ArithmeticException: / by zero")
		}
		return b.Default(sql)
	})
	addr, logs := serveFailClosed(t, b, c)
	warmOnEvidence(t, addr)
	st := status(t, addr)
	if len(st.DroppedQueries) == 0 {
		t.Fatalf("nothing dropped; decided %q", st.Decided)
	}
	for _, d := range st.DroppedQueries {
		if !strings.Contains(d.SQL, "PERCENTILE(") || !strings.HasSuffix(d.Shape, "percentile") ||
			!strings.Contains(d.Reason, "no success in 3 probes") || !strings.Contains(d.Reason, "QueryExecutionError") {
			t.Errorf("dropped %+v", d)
		}
	}
	if !strings.Contains(st.Decided, "dropped (") || !strings.Contains(st.Decided, "QueryExecutionError") {
		t.Errorf("decided %q, want the dropped shape and its error", st.Decided)
	}
	if n := strings.Count(logs.String(), "generated probe dropped: it never succeeds"); n != len(st.DroppedQueries) {
		t.Errorf("%d drop log lines for %d dropped queries", n, len(st.DroppedQueries))
	}
}

// HIGH 2, every shape: schema shapes the broker answers none of fall back to
// the LIMIT 1 probe, and the run warms on it.
func TestServeEveryShapeFailsFallsBackToLimit1(t *testing.T) {
	b, c := newCluster(t)
	b.SetAnswer(func(sql string) (int, string) {
		if strings.HasPrefix(sql, "SELECT * FROM ") || sql == prober.NoScatterSQL || sql == prober.MultiStageSQL {
			return b.Default(sql) // samples, LIMIT 1 probes, the no-scatter queries
		}
		return 200, fakepinot.Error(200, "QueryExecutionError", "no shape runs here")
	})
	addr, _ := serveFailClosed(t, b, c)
	warmOnEvidence(t, addr)
	st := status(t, addr)
	if len(st.ShapeFallbacks) != 3 || !strings.Contains(st.Decided, "probed with LIMIT 1") {
		t.Errorf("fallbacks %v, decided %q: want every leg on LIMIT 1, said", st.ShapeFallbacks, st.Decided)
	}
	for _, s := range st.Shapes {
		if s.Shape != prober.ShapeLimit1 {
			t.Errorf("shape %s after the fallback", s.Shape)
		}
	}
}

// MEDIUM 5: one table leg still getting faster with every probe of each of
// its queries. Each leg's query is judged on its own (the multi-stage ones
// leg by leg), so the pod is Ready only once that leg's queries have
// flattened, not when the flat legs' medians hide them.
func TestServeWaitsForEveryTableLeg(t *testing.T) {
	b, c := newCluster(t)
	var mu sync.Mutex
	seen := map[string]int{}
	b.SetAnswer(func(sql string) (int, string) {
		if strings.Contains(sql, `"events_REALTIME"`) && !strings.HasPrefix(sql, "SELECT * FROM ") {
			mu.Lock()
			n := seen[sql]
			seen[sql]++
			mu.Unlock()
			time.Sleep(time.Duration(float64(40*time.Millisecond) * math.Pow(0.8, float64(n))))
		}
		return b.Default(sql)
	})
	addr, _ := serveFailClosed(t, b, c)
	warmOnEvidence(t, addr)
	mu.Lock()
	defer mu.Unlock()
	if len(seen) == 0 {
		t.Fatal("no probe of the events_REALTIME leg")
	}
	// 40 ms·0.8ⁿ is within 2 ms of its floor from n = 14 on: the band's width
	// at that level (1 ms at least), give or take the HTTP round trip's jitter.
	for sql, n := range seen {
		if n < 14 && !sqlDropped(status(t, addr).DroppedQueries, sql) {
			t.Errorf("Ready after %d probes of %s: it was still getting faster", n, sql)
		}
	}
}

func sqlDropped(ds []report.Dropped, sql string) bool {
	for _, d := range ds {
		if d.SQL == sql {
			return true
		}
	}
	return false
}
