//go:build e2e

package scenarios

import (
	"context"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/e2e/cluster"
	"github.com/warmup-sidecar/warmup-sidecar/e2e/sidecar"
	"github.com/warmup-sidecar/warmup-sidecar/internal/report"
)

// exitFloor ends a run at its floor: for the scenarios about something else than
// the exit rule (which TestWarmupGatesReadinessOnColdBroker and the JIT scenario
// check with the defaults), so their runs end warm in a time their checks can bound.
const exitFloor = "WARMUP_EXIT=floor"

// env is the sidecar environment every scenario starts from.
func env(extra ...string) map[string]string {
	e := map[string]string{
		"WARMUP_BROKER_URL":     pinot.BrokerURL(),
		"WARMUP_CONTROLLER_URL": pinot.ControllerURL(),
		"WARMUP_LOG_LEVEL":      "info",
	}
	for _, kv := range extra {
		k, v, _ := strings.Cut(kv, "=")
		e[k] = v
	}
	return e
}

// startSidecar runs the binary for the rest of the test; it is stopped (and must
// exit 0) at cleanup.
func startSidecar(t *testing.T, e map[string]string) *sidecar.Proc {
	t.Helper()
	// An io.Writer, not a *testWriter: a nil pointer in an interface is not nil.
	var tee io.Writer
	if testing.Verbose() {
		tee = &testWriter{t: t}
	}
	p, err := sidecar.Start(bin, e, tee)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := p.Stop(10 * time.Second); err != nil {
			t.Errorf("sidecar stop: %v", err)
		}
	})
	return p
}

type testWriter struct{ t *testing.T }

func (w *testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// coldBroker restarts the broker JVM (SIGKILL + start) and returns at once: the
// broker is not healthy yet.
func coldBroker(t *testing.T, opts ...cluster.BrokerOption) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if err := pinot.RestartBroker(ctx, opts...); err != nil {
		t.Fatalf("restarting the broker: %v", err)
	}
}

// healthyBroker waits for the broker's /health 200.
func healthyBroker(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if err := pinot.WaitBrokerHealthy(ctx); err != nil {
		t.Fatalf("broker not healthy: %v", err)
	}
}

// brokerHealth is the broker's own /health status code (0: no answer).
func brokerHealth() int {
	c := http.Client{Timeout: time.Second}
	resp, err := c.Get(pinot.BrokerURL() + "/health")
	if err != nil {
		return 0
	}
	resp.Body.Close()
	return resp.StatusCode
}

// waitOutcome polls /status until a run has an outcome, up to d.
func waitOutcome(t *testing.T, p *sidecar.Proc, d time.Duration) report.Status {
	t.Helper()
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		if s, err := p.Status(); err == nil && s.Outcome != "" {
			return s
		}
		time.Sleep(100 * time.Millisecond)
	}
	s, _ := p.Status()
	t.Fatalf("no outcome within %s; status %+v; logs:\n%s", d, s, p.Logs())
	return s
}

// waitReady waits for /readyz 200, polling like a kubelet (period 1s would be
// slow for tests; 100ms keeps the timing precise).
func waitReady(t *testing.T, p *sidecar.Proc, d time.Duration) time.Duration {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	took, err := p.WaitReady(ctx, 100*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	return took
}

func metric(t *testing.T, p *sidecar.Proc, name string, labels ...string) float64 {
	t.Helper()
	v, ok, err := p.Metric(name, labels...)
	if err != nil || !ok {
		t.Fatalf("metric %s%v: ok=%v err=%v", name, labels, ok, err)
	}
	return v
}

// brokerLog returns the broker log written after offset, and the new offset.
func brokerLog(t *testing.T, offset int64) (string, int64) {
	t.Helper()
	b, err := os.ReadFile(pinot.LogPath("broker"))
	if err != nil {
		t.Fatal(err)
	}
	if offset > int64(len(b)) {
		offset = 0 // a restarted broker may have truncated its log
	}
	return string(b[offset:]), int64(len(b))
}
