package gatehttp

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/prometheus/client_golang/prometheus/testutil/promlint"

	"github.com/warmup-sidecar/warmup-sidecar/pkg/pinot"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/prober"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/selector"
)

type fixture struct {
	reg     *prometheus.Registry
	m       *Metrics
	gate    *Gate
	board   *StatusBoard
	healthy atomic.Bool
	checks  atomic.Int64
	clock   *fakeClock // the broker-health cache's clock
	srv     *httptest.Server
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	f := &fixture{reg: prometheus.NewRegistry(), clock: newFakeClock()}
	m, err := NewMetrics(f.reg)
	if err != nil {
		t.Fatal(err)
	}
	f.m = m
	f.gate = NewGate(m)
	f.board = NewStatusBoard(true, 100, 15*time.Second, time.Now)
	h := &BrokerHealth{
		Check: func(context.Context) (pinot.Health, error) {
			f.checks.Add(1)
			if f.healthy.Load() {
				return pinot.Health{OK: true, Status: 200, Body: "OK"}, nil
			}
			return pinot.Health{Status: 503, Body: "Pinot broker status is STARTING"}, nil
		},
		MaxAge: time.Second, Timeout: time.Second, Now: f.clock.Now,
	}
	f.srv = httptest.NewServer((&Handlers{Gate: f.gate, Board: f.board, Health: h, Gatherer: f.reg}).Mux())
	t.Cleanup(f.srv.Close)
	return f
}

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func TestMetricsArePromlintClean(t *testing.T) {
	f := newFixture(t)
	f.m.SetUncovered(2)
	f.m.ProbeDuration.Observe(0.01)
	names := lintedNames(t, f.reg)
	for _, want := range []string{"pinot_warmup_broker_warm", "pinot_warmup_duration_seconds", "pinot_warmup_uncovered_servers",
		"pinot_warmup_probes_total", "pinot_warmup_probe_duration_seconds", "pinot_warmup_runs_total", "pinot_warmup_phase"} {
		if !names[want] {
			t.Errorf("metric %s missing", want)
		}
	}
}

// lintedNames gathers reg, reports every promlint problem and returns the metric names.
func lintedNames(t *testing.T, reg *prometheus.Registry) map[string]bool {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	problems, err := promlint.NewWithMetricFamilies(mfs).Lint()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Errorf("promlint: %s: %s", p.Metric, p.Text)
	}
	names := map[string]bool{}
	for _, mf := range mfs {
		names[mf.GetName()] = true
	}
	return names
}

func TestUncoveredGaugeAbsentUntilSet(t *testing.T) {
	f := newFixture(t)
	if n := testutil.CollectAndCount(f.m.uncovered); n != 0 {
		t.Fatalf("uncovered series = %d before any run, want absent", n)
	}
	f.m.SetUncovered(1)
	if v := testutil.ToFloat64(f.m.uncovered.WithLabelValues()); v != 1 {
		t.Fatalf("uncovered = %v", v)
	}
}

func TestReadyzNeedsOpenGateAndHealthyBroker(t *testing.T) {
	f := newFixture(t)
	code, body := get(t, f.srv.URL+"/readyz")
	if code != 503 || !strings.Contains(body, "waiting_for_broker") {
		t.Fatalf("closed gate: %d %q", code, body)
	}
	f.gate.SetPhase(PhaseWarming, "warming: floor 100")
	code, body = get(t, f.srv.URL+"/readyz")
	if code != 503 || !strings.Contains(body, "warming") {
		t.Fatalf("warming: %d %q", code, body)
	}
	f.gate.Open()
	f.gate.SetPhase(PhaseWarm, "warm")
	code, body = get(t, f.srv.URL+"/readyz")
	if code != 503 || !strings.Contains(body, "STARTING") {
		t.Fatalf("open gate, unhealthy broker: %d %q, want 503 with the broker's reason", code, body)
	}
	f.healthy.Store(true)
	f.clock.Advance(time.Second) // let the cached unhealthy answer age out
	if code, body = get(t, f.srv.URL+"/readyz"); code != 200 {
		t.Fatalf("open gate, healthy broker: %d %q", code, body)
	}
	f.gate.SetPhase(PhaseStopping, "stopping")
	if code, _ = get(t, f.srv.URL+"/readyz"); code != 503 {
		t.Fatalf("stopping: %d, want 503", code)
	}
	if code, _ = get(t, f.srv.URL+"/livez"); code != 200 {
		t.Fatalf("livez while stopping: %d, want 200", code)
	}
}

func TestReadyzCachesBrokerHealthForOneSecond(t *testing.T) {
	f := newFixture(t)
	f.healthy.Store(true)
	f.gate.Open()
	for range 50 {
		get(t, f.srv.URL+"/readyz")
	}
	if n := f.checks.Load(); n != 1 {
		t.Fatalf("50 readiness checks within a second made %d broker /health calls, want 1", n)
	}
}

func TestBrokerHealthUnreachable(t *testing.T) {
	h := &BrokerHealth{
		Check:  func(context.Context) (pinot.Health, error) { return pinot.Health{}, errors.New("connection refused") },
		MaxAge: time.Second, Timeout: time.Second, Now: time.Now,
	}
	ok, why := h.Get(context.Background())
	if ok || !strings.Contains(why, "unreachable") {
		t.Fatalf("got %v %q", ok, why)
	}
}

func TestGateMirrorsGauges(t *testing.T) {
	f := newFixture(t)
	if v := testutil.ToFloat64(f.m.Warm); v != 0 {
		t.Fatalf("warm gauge at start = %v", v)
	}
	f.gate.SetPhase(PhaseWarming, "x")
	if v := testutil.ToFloat64(f.m.phase.WithLabelValues("warming")); v != 1 {
		t.Fatalf("phase{warming} = %v", v)
	}
	if v := testutil.ToFloat64(f.m.phase.WithLabelValues("waiting_for_broker")); v != 0 {
		t.Fatalf("phase{waiting_for_broker} = %v after leaving it", v)
	}
	f.gate.Open()
	if v := testutil.ToFloat64(f.m.Warm); v != 1 {
		t.Fatalf("warm gauge after open = %v", v)
	}
}

func TestRecorderFeedsStatusAndMetrics(t *testing.T) {
	f := newFixture(t)
	rec := Recorder{M: f.m, Board: f.board}
	now := time.Now()
	f.board.StartRun(now, now.Add(15*time.Second))
	f.gate.SetPhase(PhaseWarming, "warming")
	cov := selector.Coverage{Universe: []string{"s1", "s2"}, Uncovered: []string{"s2"}}
	rec.Planned(prober.Plan{Tables: []selector.Table{{Name: "orders"}}, Queries: []string{"q1"}, Coverage: &cov})
	rec.Probed(prober.ProbeEvent{Step: prober.StepProbe, Result: pinot.Result{Class: pinot.Success}, Latency: 3 * time.Millisecond})
	rec.Probed(prober.ProbeEvent{Step: prober.StepProbe, Result: pinot.Result{Class: pinot.Transient, Message: "error 427: servers not responding"}})
	rec.Probed(prober.ProbeEvent{Step: prober.StepNoScatter, Result: pinot.Result{Class: pinot.Success}})
	rec.QueryDropped("SELECT x", "error 710: Unknown column")

	code, body := get(t, f.srv.URL+"/status")
	if code != 200 {
		t.Fatal(code)
	}
	var s Status
	if err := json.Unmarshal([]byte(body), &s); err != nil {
		t.Fatal(err)
	}
	if s.Phase != PhaseWarming || s.ProbesSucceeded != 1 || s.ProbesFailed != 1 || s.NoScatterProbes != 1 ||
		s.Floor != 100 || s.Tables[0] != "orders" || s.UncoveredServers[0] != "s2" ||
		!strings.Contains(s.LastError, "427") || len(s.DroppedQueries) != 1 || s.BudgetLeftSecond <= 14 || s.Run != 1 {
		t.Fatalf("status = %+v", s)
	}
	if v := testutil.ToFloat64(f.m.Probes.WithLabelValues("success")); v != 1 {
		t.Errorf("probes{success} = %v", v)
	}
	if v := testutil.ToFloat64(f.m.Probes.WithLabelValues("failure")); v != 1 {
		t.Errorf("probes{failure} = %v", v)
	}
	if v := testutil.ToFloat64(f.m.uncovered.WithLabelValues()); v != 1 {
		t.Errorf("uncovered = %v", v)
	}
}

// Stop is final: a supervisor winding down can neither reopen the gate nor move
// it out of phase stopping.
func TestGateStopIsFinal(t *testing.T) {
	f := newFixture(t)
	f.gate.Open()
	f.gate.Stop("stopping: SIGTERM")
	f.gate.Open()
	f.gate.SetPhase(PhaseWarm, "warm")
	if f.gate.IsOpen() || f.gate.Phase() != PhaseStopping {
		t.Fatalf("after Stop: open=%v phase=%s", f.gate.IsOpen(), f.gate.Phase())
	}
	if v := testutil.ToFloat64(f.m.Warm); v != 0 {
		t.Errorf("broker_warm = %v after Stop", v)
	}
	if code, body := get(t, f.srv.URL+"/readyz"); code != 503 || !strings.Contains(body, "stopping") {
		t.Errorf("/readyz after Stop: %d %q", code, body)
	}
}
