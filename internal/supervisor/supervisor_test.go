package supervisor

import (
	"context"
	"github.com/warmup-sidecar/warmup-sidecar/internal/report"
	"io"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/warmup-sidecar/warmup-sidecar/internal/fakepinot"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/backoff"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/gatehttp"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/pinot"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/prober"
)

type harness struct {
	sup    *Supervisor
	broker *fakepinot.Broker
	ctrl   *fakepinot.Controller
	m      *report.Metrics
	gm     *gatehttp.Metrics
	logs   *syncBuffer
	done   chan error
	cancel context.CancelFunc
}

type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func newHarness(t *testing.T, opts Options) *harness {
	t.Helper()
	b := fakepinot.NewBroker(fakepinot.ThreeServers())
	c := fakepinot.NewController(fakepinot.ThreeServerTables()...)
	t.Cleanup(b.Close)
	t.Cleanup(c.Close)
	m, gm := newMetrics(t)
	if opts.Settings.Concurrency == 0 {
		opts.Settings.Concurrency = 2
	}
	if opts.Settings.MaxTables == 0 {
		opts.Settings.MaxTables = 5
	}
	if opts.Settings.ProbeTimeout == 0 {
		opts.Settings.ProbeTimeout = time.Second
	}
	client := pinot.New(pinot.Options{BrokerURL: b.URL(), ControllerURL: c.URL()})
	logs := &syncBuffer{}
	h := &harness{broker: b, ctrl: c, m: m, gm: gm, logs: logs}
	h.sup = &Supervisor{
		Opts:      opts,
		Broker:    client,
		Gate:      gatehttp.NewGate(gm),
		Board:     report.NewStatusBoard(opts.Enabled, opts.Settings.MinIterations, opts.Budget, time.Now),
		Health:    &gatehttp.BrokerHealth{Check: HealthCheck(client.Health), MaxAge: time.Second, Timeout: time.Second, Now: time.Now},
		Metrics:   m,
		Log:       slog.New(slog.NewJSONHandler(io.MultiWriter(logs), &slog.HandlerOptions{Level: slog.LevelDebug})),
		PollEvery: 50 * time.Millisecond, WaitMax: 100 * time.Millisecond, ProgressEvery: 200 * time.Millisecond,
	}
	return h
}

// newMetrics registers the runs' and the gate's collectors on a registry of their own.
func newMetrics(t *testing.T) (*report.Metrics, *gatehttp.Metrics) {
	t.Helper()
	reg := prometheus.NewRegistry()
	gm, err := gatehttp.NewMetrics(reg)
	if err != nil {
		t.Fatal(err)
	}
	m, err := report.NewMetrics(reg)
	if err != nil {
		t.Fatal(err)
	}
	return m, gm
}

func (h *harness) start(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	h.cancel, h.done = cancel, make(chan error, 1)
	go func() { h.done <- h.sup.Run(ctx) }()
	t.Cleanup(h.stop)
}

func (h *harness) stop() {
	h.cancel()
	<-h.done
}

// waitFor polls cond every 10ms for up to d.
func waitFor(t *testing.T, d time.Duration, what string, cond func() bool) time.Duration {
	t.Helper()
	start := time.Now()
	for time.Since(start) < d {
		if cond() {
			return time.Since(start)
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("timed out after %s waiting for %s", d, what)
	return 0
}

// countSleeps counts the supervisor's waits: each follows one turn of its loops
// (while waiting for the broker, one /health poll).
func countSleeps(s *Supervisor) *atomic.Int64 {
	var n atomic.Int64
	s.Sleep = func(ctx context.Context, d time.Duration) bool {
		n.Add(1)
		return backoff.Sleep(ctx, d)
	}
	return &n
}

func (h *harness) runs(outcome prober.Outcome) float64 {
	return testutil.ToFloat64(h.m.Runs.WithLabelValues(string(outcome)))
}

func TestReadyOnlyAfterFloor(t *testing.T) {
	h := newHarness(t, Options{Enabled: true, Budget: 10 * time.Second, Rearm: true, Settings: prober.Settings{MinIterations: 200}})
	h.broker.SetStatus("STARTING")
	h.broker.SetDelay(2 * time.Millisecond)
	polls := countSleeps(h.sup)
	h.start(t)
	waitFor(t, 5*time.Second, "three /health polls answered STARTING", func() bool { return polls.Load() >= 3 })
	// Before /health 200 only the no-scatter queries of the early warmup (early.go) are sent: no probe.
	early := h.broker.QueriesOf(prober.NoScatterSQL) + h.broker.QueriesOf(prober.MultiStageSQL)
	if h.sup.Gate.IsOpen() || h.sup.Gate.Phase() != gatehttp.PhaseWaiting || h.broker.Queries() != early || early == 0 {
		t.Fatalf("before broker GOOD: open=%v phase=%s queries=%d (no-scatter %d)", h.sup.Gate.IsOpen(), h.sup.Gate.Phase(), h.broker.Queries(), early)
	}
	h.broker.SetStatus("GOOD")
	waitFor(t, 5*time.Second, "warming", func() bool { return h.sup.Gate.Phase() == gatehttp.PhaseWarming })
	if h.sup.Gate.IsOpen() {
		t.Fatal("gate open while warming")
	}
	waitFor(t, 10*time.Second, "gate open", h.sup.Gate.IsOpen)
	st := h.sup.Board.Snapshot(h.sup.Gate)
	if st.ProbesSucceeded < 200 || st.Outcome != "warm" || h.runs(prober.OutcomeWarm) != 1 {
		t.Fatalf("opened with %d successes, outcome %q", st.ProbesSucceeded, st.Outcome)
	}
	if v := testutil.ToFloat64(h.gm.Warm); v != 1 {
		t.Fatalf("broker_warm = %v", v)
	}
	if !strings.Contains(h.logs.String(), `"msg":"warming"`) {
		t.Errorf("no progress line logged while warming: %s", h.logs.String())
	}
}

func TestBudgetExpiryOpensGateInTime(t *testing.T) {
	h := newHarness(t, Options{Enabled: true, Budget: time.Second, Rearm: true, Settings: prober.Settings{MinIterations: 1_000_000, ProbeTimeout: 5 * time.Second}})
	h.broker.SetDelay(time.Hour) // a broker that accepts and never answers
	h.start(t)
	waitFor(t, 2*time.Second, "warming", func() bool { return h.sup.Gate.Phase() == gatehttp.PhaseWarming })
	took := waitFor(t, 3*time.Second, "gate open", h.sup.Gate.IsOpen)
	if took > 2*time.Second {
		t.Fatalf("gate opened %s after warming began, want within budget (1s) + 1s", took)
	}
	if h.runs(prober.OutcomeBudgetExpired) != 1 {
		t.Fatalf("runs{budget_expired} = %v", h.runs(prober.OutcomeBudgetExpired))
	}
	if !strings.Contains(h.logs.String(), `"outcome":"budget_expired"`) {
		t.Errorf("outcome not logged")
	}
}

func TestFailClosedStaysClosedAndKeepsWarming(t *testing.T) {
	h := newHarness(t, Options{Enabled: true, Budget: 300 * time.Millisecond, FailClosed: true, Rearm: true, Settings: prober.Settings{MinIterations: 1_000_000}})
	h.start(t)
	waitFor(t, 5*time.Second, "two expired runs", func() bool { return h.runs(prober.OutcomeBudgetExpired) >= 2 })
	if h.sup.Gate.IsOpen() {
		t.Fatal("fail-closed gate opened for an unwarm broker")
	}
	if v := testutil.ToFloat64(h.gm.Warm); v != 0 {
		t.Fatalf("broker_warm = %v, want 0", v)
	}
}

// TestFailClosedOpensOnceWarm: the first run cannot warm (every probe a 427) and
// fail-closed keeps the gate shut through its outcome; once probes succeed, the
// next run reaches the floor and opens it.
func TestFailClosedOpensOnceWarm(t *testing.T) {
	h := newHarness(t, Options{Enabled: true, Budget: 300 * time.Millisecond, FailClosed: true, Rearm: true, Settings: prober.Settings{MinIterations: 20}})
	h.broker.SetAnswer(func(string) (int, string) {
		return 200, fakepinot.Error(427, "ServerNotRespondingError", "1 servers [Server_1] not responded")
	})
	h.start(t)
	// Fail-open would open the gate right after the first run; fail-closed starts a second.
	waitFor(t, 5*time.Second, "a second run or an open gate", func() bool {
		return h.sup.Gate.IsOpen() || h.sup.Board.Snapshot(h.sup.Gate).Run >= 2
	})
	if h.sup.Gate.IsOpen() || h.runs(prober.OutcomeBudgetExpired) < 1 {
		t.Fatalf("after an unwarm run: open=%v, runs{budget_expired}=%v; want closed after one expired run",
			h.sup.Gate.IsOpen(), h.runs(prober.OutcomeBudgetExpired))
	}
	h.broker.SetAnswer(nil)
	waitFor(t, 5*time.Second, "gate open", h.sup.Gate.IsOpen)
	if h.runs(prober.OutcomeWarm) != 1 {
		t.Fatalf("gate open with runs{warm} = %v", h.runs(prober.OutcomeWarm))
	}
}

func TestRearmAfterBrokerRestart(t *testing.T) {
	h := newHarness(t, Options{Enabled: true, Budget: 5 * time.Second, Rearm: true, Settings: prober.Settings{MinIterations: 50}})
	h.start(t)
	waitFor(t, 5*time.Second, "first warm", h.sup.Gate.IsOpen)
	before := h.broker.Queries()
	h.broker.Down()
	waitFor(t, 2*time.Second, "gate closed after broker died", func() bool { return !h.sup.Gate.IsOpen() })
	if p := h.sup.Gate.Phase(); p != gatehttp.PhaseWaiting {
		t.Fatalf("phase = %s, want waiting_for_broker", p)
	}
	if err := h.broker.Up(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 5*time.Second, "second warm", func() bool { return h.runs(prober.OutcomeWarm) == 2 && h.sup.Gate.IsOpen() })
	if h.broker.Queries()-before < 50 {
		t.Fatalf("re-armed run sent %d probes, want ≥ the floor", h.broker.Queries()-before)
	}
}

func TestNoRearmReopensWithoutProbes(t *testing.T) {
	h := newHarness(t, Options{Enabled: true, Budget: 5 * time.Second, Rearm: false, Settings: prober.Settings{MinIterations: 20}})
	h.start(t)
	waitFor(t, 5*time.Second, "first warm", h.sup.Gate.IsOpen)
	h.broker.Down()
	waitFor(t, 2*time.Second, "gate closed", func() bool { return !h.sup.Gate.IsOpen() })
	before := h.broker.Queries()
	if err := h.broker.Up(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 5*time.Second, "gate reopened", h.sup.Gate.IsOpen)
	if n := h.broker.Queries() - before; n != 0 {
		t.Fatalf("WARMUP_REARM=false still sent %d probes", n)
	}
}

// TestBrokerShuttingDownIsGoneAfterThreePolls: two SHUTTING_DOWN answers leave a
// warm gate open; the third withdraws it. The third answer is held until the test
// has looked at the gate, so the count is exact.
func TestBrokerShuttingDownIsGoneAfterThreePolls(t *testing.T) {
	fb := newFaultBroker(t)
	var shutting atomic.Bool
	var polls atomic.Int64
	third, resume := make(chan struct{}), make(chan struct{})
	fb.broker.SetHealth(func() (int, string) {
		if !shutting.Load() {
			return 200, "OK"
		}
		if polls.Add(1) == 3 {
			close(third)
			<-resume
		}
		return 503, "Pinot broker status is SHUTTING_DOWN"
	})
	fs := newFaultSup(t, fb.broker.URL(), fb.ctrl.URL(), Options{Enabled: true, Budget: 5 * time.Second, Rearm: true,
		Settings: prober.Settings{MinIterations: 10, Concurrency: 2, MaxTables: 5, ProbeTimeout: time.Second}}, nil)
	fs.sup.HealthTimeout = time.Minute // the held answer is not a timeout
	fs.run(t)
	waitFor(t, 5*time.Second, "warm", fs.sup.Gate.IsOpen)
	shutting.Store(true)
	select {
	case <-third:
	case <-time.After(5 * time.Second):
		t.Fatalf("no third /health poll; %d SHUTTING_DOWN answers", polls.Load())
	}
	open := fs.sup.Gate.IsOpen()
	close(resume)
	if !open {
		t.Fatal("gate withdrawn after two SHUTTING_DOWN polls, want three")
	}
	waitFor(t, 2*time.Second, "gate closed after the third", func() bool { return !fs.sup.Gate.IsOpen() })
	fs.stop(t)
	fb.close()
}

func TestBrokerDiesMidWarmupRestartsTheCycle(t *testing.T) {
	h := newHarness(t, Options{Enabled: true, Budget: 10 * time.Second, Rearm: true, Settings: prober.Settings{MinIterations: 1_000_000}})
	h.start(t)
	waitFor(t, 2*time.Second, "warming", func() bool { return h.sup.Gate.Phase() == gatehttp.PhaseWarming })
	h.broker.Down()
	waitFor(t, 2*time.Second, "back to waiting", func() bool { return h.sup.Gate.Phase() == gatehttp.PhaseWaiting })
	if h.sup.Gate.IsOpen() || h.runs(prober.OutcomeFailed) != 1 {
		t.Fatalf("open=%v failed runs=%v", h.sup.Gate.IsOpen(), h.runs(prober.OutcomeFailed))
	}
	// /status says why in the broker's terms, not the budget's.
	if st := h.sup.Board.Snapshot(h.sup.Gate); !strings.Contains(st.ExitReason, "broker went away") || strings.Contains(st.ExitReason, "budget") {
		t.Fatalf("exit_reason %q, want the broker's going away", st.ExitReason)
	}
}

func TestDisabledIsPassThrough(t *testing.T) {
	h := newHarness(t, Options{Enabled: false, Budget: 5 * time.Second, Rearm: true, Settings: prober.Settings{MinIterations: 1000}})
	h.broker.SetStatus("STARTING")
	polls := countSleeps(h.sup)
	h.start(t)
	waitFor(t, 5*time.Second, "two /health polls answered STARTING", func() bool { return polls.Load() >= 2 })
	if h.sup.Gate.IsOpen() {
		t.Fatal("disabled gate open before broker healthy")
	}
	h.broker.SetStatus("GOOD")
	waitFor(t, 2*time.Second, "gate open", h.sup.Gate.IsOpen)
	if h.broker.Queries() != 0 {
		t.Fatalf("disabled sidecar sent %d probes", h.broker.Queries())
	}
}

func TestOnce(t *testing.T) {
	h := newHarness(t, Options{Enabled: true, Budget: 5 * time.Second, Rearm: true, Settings: prober.Settings{MinIterations: 30}})
	ctx := context.Background()
	rep, err := h.sup.Once(ctx, ctx)
	if err != nil || rep.Outcome != prober.OutcomeWarm {
		t.Fatalf("once: %v %v", rep.Outcome, err)
	}
	h.broker.SetStatus("STARTING")
	wctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	if _, err := h.sup.Once(ctx, wctx); err == nil {
		t.Fatal("once against a broker that never turns GOOD returned no error")
	}
}

func TestCoverageWarningNamesUncoveredServer(t *testing.T) {
	h := newHarness(t, Options{Enabled: true, Budget: 5 * time.Second, Rearm: true, Settings: prober.Settings{MinIterations: 5, MaxTables: 1}})
	h.start(t)
	waitFor(t, 5*time.Second, "warm", h.sup.Gate.IsOpen)
	logs := h.logs.String()
	if !strings.Contains(logs, `"level":"WARN"`) || !strings.Contains(logs, `"uncovered_servers":"Server_10.0.0.1_8098"`) {
		t.Fatalf("no coverage WARN naming server 1: %s", logs)
	}
}
