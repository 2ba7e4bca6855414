package supervisor

import (
	"context"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/internal/fakepinot"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/gatehttp"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/pinot"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/prober"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/sqltext"
)

// sentLog wraps the supervisor's broker and notes every query it sends, with
// the gate's phase at that moment.
type sentLog struct {
	Broker
	gate *gatehttp.Gate
	mu   sync.Mutex
	sent []sentQuery
}

type sentQuery struct {
	sql, id string
	phase   gatehttp.Phase
}

func (l *sentLog) Query(ctx context.Context, q pinot.Query) pinot.Result {
	l.mu.Lock()
	l.sent = append(l.sent, sentQuery{q.SQL, q.ClientQueryID, l.gate.Phase()})
	l.mu.Unlock()
	return l.Broker.Query(ctx, q)
}

// early returns the early queries sent, and how many were sent once the run began.
func (l *sentLog) early() (sqls []string, late int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, q := range l.sent {
		if q.id != pinot.ProbeIDPrefix+"early" {
			continue
		}
		sqls = append(sqls, q.sql)
		if q.phase != gatehttp.PhaseWaiting {
			late++
		}
	}
	return sqls, late
}

func logSentQueries(h *harness) *sentLog {
	l := &sentLog{Broker: h.sup.Broker, gate: h.sup.Gate}
	h.sup.Broker = l
	return l
}

// A broker that answers HTTP but not yet /health 200 (Pinot's query API starts
// before the broker joins Helix) gets the no-scatter queries of both engines
// meanwhile, none once it is healthy, and the run still warms it as usual.
func TestEarlyQueriesWhileTheBrokerStarts(t *testing.T) {
	h := newHarness(t, Options{Enabled: true, Budget: 5 * time.Second, Rearm: true, Settings: prober.Settings{MinIterations: 30}})
	sent := logSentQueries(h)
	h.broker.SetStatus("STARTING")
	h.start(t)
	waitFor(t, 5*time.Second, "early queries of both engines", func() bool {
		return h.broker.QueriesOf(prober.MultiStageSQL) >= 2 && h.broker.QueriesOf(prober.NoScatterSQL) >= 2
	})
	if h.sup.Gate.IsOpen() || h.sup.Gate.Phase() != gatehttp.PhaseWaiting {
		t.Fatalf("phase %s, open %v while the broker is STARTING", h.sup.Gate.Phase(), h.sup.Gate.IsOpen())
	}
	h.broker.SetStatus("GOOD")
	waitFor(t, 5*time.Second, "warm", h.sup.Gate.IsOpen)

	sqls, late := sent.early()
	if late != 0 {
		t.Errorf("%d early queries sent after the broker turned healthy", late)
	}
	for _, q := range sqls {
		if q != prober.MultiStageSQL && q != prober.NoScatterSQL {
			t.Errorf("early query %q: want only the no-scatter queries", q)
		}
	}
	if !strings.Contains(h.logs.String(), `"msg":"queries before /health 200 (early warmup)"`) {
		t.Errorf("log:\n%s\nwant the early warmup's summary", h.logs.String())
	}
	if h.runs(prober.OutcomeWarm) != 1 {
		t.Errorf("warm runs = %v, want 1", h.runs(prober.OutcomeWarm))
	}
}

// With the multi-stage engine off, the early queries leave it alone too.
func TestEarlyQueriesKeepTheEngineSetting(t *testing.T) {
	h := newHarness(t, Options{Enabled: true, Budget: 5 * time.Second, Rearm: true,
		Settings: prober.Settings{MinIterations: 30, MultiStage: prober.EngineOff}})
	sent := logSentQueries(h)
	h.broker.SetStatus("STARTING")
	h.start(t)
	waitFor(t, 5*time.Second, "early queries", func() bool { return h.broker.QueriesOf(prober.NoScatterSQL) >= 3 })
	h.broker.SetStatus("GOOD")
	waitFor(t, 5*time.Second, "warm", h.sup.Gate.IsOpen)
	if sqls, _ := sent.early(); len(sqls) < 3 || h.broker.QueriesOf(prober.MultiStageSQL) != 0 {
		t.Errorf("early queries %q and %d multi-stage queries: want single-stage SELECT 1 only", sqls, h.broker.QueriesOf(prober.MultiStageSQL))
	}
}

// A broker still starting refuses connections: the early queries are tried
// again after a short wait, not in a tight loop, and reach the query endpoint
// as soon as it listens.
func TestEarlyQueriesReachTheBrokerAsSoonAsItListens(t *testing.T) {
	h := newHarness(t, Options{Enabled: true, Budget: 5 * time.Second, Rearm: true, Settings: prober.Settings{MinIterations: 30}})
	sent := logSentQueries(h)
	h.broker.Down()
	h.broker.SetStatus("STARTING")
	t0 := time.Now()
	h.start(t)
	time.Sleep(time.Second)
	tries, _ := sent.early()
	// Per query, 50 ms doubling to 250 ms: 6–7 tries in a second; a loop without a wait makes thousands.
	perQuery := map[string]int{}
	for _, q := range tries {
		perQuery[q]++
	}
	for _, q := range []string{prober.MultiStageSQL, prober.NoScatterSQL} {
		if n := perQuery[q]; n == 0 || n > 2+int(time.Since(t0)/(100*time.Millisecond)) {
			t.Errorf("%d tries of %q in %v against a refusing broker: want a few, spaced out", n, q, time.Since(t0).Round(time.Millisecond))
		}
	}
	if h.broker.Queries() != 0 {
		t.Fatalf("a down broker answered %d queries", h.broker.Queries())
	}
	if err := h.broker.Up(); err != nil {
		t.Fatal(err)
	}
	took := waitFor(t, 2*time.Second, "the multi-stage SELECT 1 answered once the broker listens",
		func() bool { return h.broker.QueriesOf(prober.MultiStageSQL) >= 1 })
	t.Logf("first early query answered %v after the broker listened", took.Round(time.Millisecond))
	h.broker.SetStatus("GOOD")
	waitFor(t, 5*time.Second, "warm", h.sup.Gate.IsOpen)
	if _, late := sent.early(); late != 0 {
		t.Errorf("%d early queries sent after the broker turned healthy", late)
	}
}

// A broker whose multi-stage engine refuses (disabled) still gets the
// single-stage SELECT 1 early: an answered failure moves on to the next query.
func TestEarlyQueriesGoOnPastARefusingEngine(t *testing.T) {
	h := newHarness(t, Options{Enabled: true, Budget: 5 * time.Second, Rearm: true, Settings: prober.Settings{MinIterations: 30}})
	h.broker.SetAnswer(func(sql string) (int, string) {
		if sql == prober.MultiStageSQL {
			return 200, fakepinot.Error(200, "QueryExecutionError", "multi-stage engine is disabled")
		}
		return 200, fakepinot.OK(0)
	})
	h.broker.SetStatus("STARTING")
	h.start(t)
	waitFor(t, 5*time.Second, "the single-stage SELECT 1 after the engine's refusals", func() bool {
		return h.broker.QueriesOf(prober.NoScatterSQL) >= 2
	})
}

// On a slow broker the multi-stage SELECT 1 is still planning when /health
// turns 200 (seen on the study's 2-vCPU broker): the single-stage one does not
// wait behind it.
func TestEarlySingleStageQueryNotHeldBehindAPlanningOne(t *testing.T) {
	h := newHarness(t, Options{Enabled: true, Budget: 5 * time.Second, Rearm: true, Settings: prober.Settings{MinIterations: 30}})
	planning := make(chan struct{})
	t.Cleanup(func() { close(planning) }) // before the harness's own cleanup closes the broker
	h.broker.SetAnswer(func(sql string) (int, string) {
		if sql == prober.MultiStageSQL {
			<-planning
		}
		return 200, fakepinot.OK(0)
	})
	h.broker.SetStatus("STARTING")
	h.start(t)
	waitFor(t, 3*time.Second, "the single-stage SELECT 1 answered while the multi-stage one plans", func() bool {
		return h.broker.QueriesOf(prober.NoScatterSQL) >= 2
	})
	if n := h.broker.QueriesOf(prober.MultiStageSQL); n != 1 {
		t.Errorf("%d multi-stage SELECT 1 sent: want the one still planning, not another beside it", n)
	}
	h.broker.SetStatus("GOOD")
	waitFor(t, 5*time.Second, "warm", h.sup.Gate.IsOpen)
}

// Custom queries choose their engine: when none runs on the multi-stage
// engine, the early queries leave it alone (its first query costs the broker
// seconds of class loading for an engine nobody probes); when one does, they
// warm it too.
func TestEarlyMultiStageQueryOnlyWhenTheRunProbesThatEngine(t *testing.T) {
	for _, c := range []struct {
		name    string
		queries []string
		mse     bool
	}{
		{"single-stage custom queries", []string{"SELECT COUNT(*) FROM orders"}, false},
		{"a multi-stage custom query", []string{"SELECT COUNT(*) FROM orders", "SET useMultistageEngine=true; SELECT COUNT(*) FROM orders"}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t, Options{Enabled: true, Budget: 5 * time.Second, Rearm: true,
				Settings: prober.Settings{MinIterations: 30, Queries: c.queries}})
			h.broker.SetStatus("STARTING")
			h.start(t)
			waitFor(t, 5*time.Second, "early queries", func() bool { return h.broker.QueriesOf(prober.NoScatterSQL) >= 3 })
			h.broker.SetStatus("GOOD")
			waitFor(t, 5*time.Second, "warm", h.sup.Gate.IsOpen)
			if got := h.broker.QueriesOf(prober.MultiStageSQL) > 0; got != c.mse {
				t.Errorf("multi-stage SELECT 1 sent: %v (%d), want %v", got, h.broker.QueriesOf(prober.MultiStageSQL), c.mse)
			}
		})
	}
}

// A broker started without the multi-stage engine says so (error 450, the
// recorded 1.5.1 answer): the early multi-stage query is not sent again.
func TestEarlyMultiStageQueryStopsWhenTheEngineIsNotEnabled(t *testing.T) {
	body, err := os.ReadFile("../../e2e/testdata/broker-responses/pinot-1.5.1/query-mse-disabled-select1.json")
	if err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, Options{Enabled: true, Budget: 5 * time.Second, Rearm: true, Settings: prober.Settings{MinIterations: 30}})
	h.broker.SetAnswer(func(sql string) (int, string) {
		if sqltext.MultiStage(sql) {
			return 200, string(body)
		}
		return 200, fakepinot.OK(0)
	})
	h.broker.SetStatus("STARTING")
	h.start(t)
	waitFor(t, 5*time.Second, "early single-stage queries", func() bool { return h.broker.QueriesOf(prober.NoScatterSQL) >= 5 })
	time.Sleep(700 * time.Millisecond) // a refused query is tried again after 50 ms doubling to 250 ms
	if n := h.broker.QueriesOf(prober.MultiStageSQL); n != 1 {
		t.Errorf("%d early multi-stage SELECT 1 sent to a broker without the engine, want 1", n)
	}
}

// A broker that answers at once gets the early queries paced, not in a tight
// loop: at most one send per earlyEvery per query (a fast fake STARTING took
// 12,314 a second without it). Counted over 1.5 s, with half as much again as
// margin.
func TestEarlyQueriesArePacedAtAFastBroker(t *testing.T) {
	h := newHarness(t, Options{Enabled: true, Budget: 5 * time.Second, Rearm: true, Settings: prober.Settings{MinIterations: 30}})
	h.broker.SetStatus("STARTING")
	h.start(t)
	waitFor(t, 5*time.Second, "early queries of both engines", func() bool {
		return h.broker.QueriesOf(prober.MultiStageSQL) >= 1 && h.broker.QueriesOf(prober.NoScatterSQL) >= 1
	})
	const window = 1500 * time.Millisecond
	ms0, ss0 := h.broker.QueriesOf(prober.MultiStageSQL), h.broker.QueriesOf(prober.NoScatterSQL)
	t0 := time.Now()
	time.Sleep(window)
	took := time.Since(t0)
	ms, ss := h.broker.QueriesOf(prober.MultiStageSQL)-ms0, h.broker.QueriesOf(prober.NoScatterSQL)-ss0
	ceiling := int64(1.5*float64(took)/float64(100*time.Millisecond)) + 1
	for _, c := range []struct {
		sql string
		n   int64
	}{{prober.MultiStageSQL, ms}, {prober.NoScatterSQL, ss}} {
		t.Logf("%q: %d sent in %v (%.0f/s)", c.sql, c.n, took.Round(time.Millisecond), float64(c.n)/took.Seconds())
		if c.n > ceiling || c.n < 3 {
			t.Errorf("%d early %q in %v at a broker answering at once: want 3..%d (one per 100 ms, paced)",
				c.n, c.sql, took.Round(time.Millisecond), ceiling)
		}
	}
	h.broker.SetStatus("GOOD")
	waitFor(t, 5*time.Second, "warm", h.sup.Gate.IsOpen)
}

// A broker draining for a shutdown says SHUTTING_DOWN on /health (503): its
// process is going, so warming it is waste and load on its last queries. On
// re-arm the old process drains while the sidecar waits: it gets no early
// query, and the new process (STARTING) gets them again.
func TestNoEarlyQueriesToAShuttingDownBroker(t *testing.T) {
	h := newHarness(t, Options{Enabled: true, Budget: 5 * time.Second, Rearm: true, Settings: prober.Settings{MinIterations: 30}})
	sent := logSentQueries(h)
	h.start(t)
	waitFor(t, 5*time.Second, "warm", h.sup.Gate.IsOpen)
	before, _ := sent.early()
	h.broker.SetStatus("SHUTTING_DOWN")
	waitFor(t, 5*time.Second, "waiting again", func() bool { return h.sup.Gate.Phase() == gatehttp.PhaseWaiting })
	time.Sleep(time.Second)
	if after, _ := sent.early(); len(after) != len(before) {
		t.Errorf("%d early queries sent to a broker saying SHUTTING_DOWN, want none", len(after)-len(before))
	}
	h.broker.SetStatus("STARTING") // the new process
	waitFor(t, 5*time.Second, "early queries to the new process", func() bool {
		after, _ := sent.early()
		return len(after) >= len(before)+2
	})
	h.broker.SetStatus("GOOD")
	waitFor(t, 5*time.Second, "warm again", h.sup.Gate.IsOpen)
}
