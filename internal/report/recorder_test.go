package report

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/prometheus/client_golang/prometheus/testutil/promlint"

	"github.com/warmup-sidecar/warmup-sidecar/pkg/gatehttp"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/pinot"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/prober"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/prober/event"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/selector"
)

// fixture is the sidecar's state and its HTTP face as the binary wires them: the
// gate's and the runs' collectors on one registry, /status served from the board.
type fixture struct {
	reg   *prometheus.Registry
	m     *Metrics
	gm    *gatehttp.Metrics
	gate  *gatehttp.Gate
	board *StatusBoard
	mux   http.Handler
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	f := &fixture{reg: prometheus.NewRegistry()}
	gm, err := gatehttp.NewMetrics(f.reg)
	if err != nil {
		t.Fatal(err)
	}
	m, err := NewMetrics(f.reg)
	if err != nil {
		t.Fatal(err)
	}
	f.m, f.gm = m, gm
	f.gate = gatehttp.NewGate(gm)
	f.board = NewStatusBoard(true, 100, 15*time.Second, time.Now)
	h := &gatehttp.BrokerHealth{
		Check:  func(context.Context) (bool, string, error) { return true, "", nil },
		MaxAge: time.Second, Timeout: time.Second, Now: time.Now,
	}
	f.mux = (&gatehttp.Handlers{Gate: f.gate, Status: f.board.Document(f.gate), Health: h, Gatherer: f.reg}).Mux()
	return f
}

// get serves one GET of path through the sidecar's handlers.
func (f *fixture) get(path string) (int, string) {
	w := httptest.NewRecorder()
	f.mux.ServeHTTP(w, httptest.NewRequest("GET", path, nil))
	return w.Code, w.Body.String()
}

func TestMetricsArePromlintClean(t *testing.T) {
	f := newFixture(t)
	f.m.SetUncovered(2)
	f.m.ProbeDuration.WithLabelValues(EngineMultiStage).Observe(0.01)
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

func TestRecorderFeedsStatusAndMetrics(t *testing.T) {
	f := newFixture(t)
	rec := Recorder{M: f.m, Board: f.board}
	now := time.Now()
	f.board.StartRun(now, now.Add(15*time.Second))
	f.gate.SetPhase(gatehttp.PhaseWarming, "warming")
	cov := selector.Coverage{Universe: []string{"s1", "s2"}, Uncovered: []string{"s2"}}
	rec.Observe(event.Event{Kind: event.KindPlanned, Plan: prober.Plan{Tables: []selector.Table{{Name: "orders"}}, Queries: []string{"q1"}, Coverage: &cov}})
	rec.Observe(event.Event{Kind: event.KindProbed, Step: event.StepProbe, Result: pinot.Result{Class: pinot.Success}, Latency: 3 * time.Millisecond})
	rec.Observe(event.Event{Kind: event.KindProbed, Step: event.StepProbe, Result: pinot.Result{Class: pinot.Transient, Message: "error 427: servers not responding"}})
	rec.Observe(event.Event{Kind: event.KindProbed, Step: event.StepNoScatter, Result: pinot.Result{Class: pinot.Success}})
	rec.Observe(event.Event{Kind: event.KindDropped, SQL: "SELECT x", Reason: "error 710: Unknown column"})

	s := f.status(t)
	if s.Phase != gatehttp.PhaseWarming || s.ProbesSucceeded != 1 || s.ProbesFailed != 1 || s.NoScatterProbes != 1 ||
		s.Floor != 100 || s.Tables[0] != "orders" || s.UncoveredServers[0] != "s2" ||
		!strings.Contains(s.LastError, "427") || len(s.DroppedQueries) != 1 || s.BudgetLeftSecond <= 14 || s.Run != 1 {
		t.Fatalf("status = %+v", s)
	}
	if v := testutil.ToFloat64(f.m.Probes.WithLabelValues("success", EngineSingleStage)); v != 1 {
		t.Errorf("probes{success} = %v", v)
	}
	if v := testutil.ToFloat64(f.m.Probes.WithLabelValues("failure", EngineSingleStage)); v != 1 {
		t.Errorf("probes{failure} = %v", v)
	}
	if v := testutil.ToFloat64(f.m.uncovered.WithLabelValues()); v != 1 {
		t.Errorf("uncovered = %v", v)
	}
}

func TestConvergenceMetricsArePromlintClean(t *testing.T) {
	f := newFixture(t)
	rec := Recorder{M: f.m, Board: f.board}
	rec.Observe(event.Event{Kind: event.KindPlanned, Plan: prober.Plan{Custom: true, Queries: []string{"q1"}, Shapes: []string{"agg_metrics"}}})
	rec.Observe(event.Event{Kind: event.KindShapeWindow, Shape: event.ShapeState{Shape: "agg_metrics", Probes: 10, Latest: 12 * time.Millisecond, Best: 12 * time.Millisecond}})
	rec.Observe(event.Event{Kind: event.KindJITRead, JIT: event.JITState{Known: true, Rate: 0.4, Peak: 0.4}})
	names := lintedNames(t, f.reg)
	for _, want := range []string{"pinot_warmup_shape_latency_seconds", "pinot_warmup_shape_converged", "pinot_warmup_jvm_compile_rate"} {
		if !names[want] {
			t.Errorf("metric %s missing", want)
		}
	}
}

func TestRecorderFollowsShapesAndTheJIT(t *testing.T) {
	f := newFixture(t)
	rec := Recorder{M: f.m, Board: f.board}
	f.board.Update(func(s *Status) { s.Exit = "converged" })
	now := time.Now()
	f.board.StartRun(now, now.Add(15*time.Second))
	if n := testutil.CollectAndCount(f.m.compileRate); n != 0 {
		t.Fatalf("compile rate has %d series before any reading, want absent", n)
	}
	rec.Observe(event.Event{Kind: event.KindPlanned, Plan: prober.Plan{Queries: []string{"a", "b", "c"}, Shapes: []string{"limit1", "limit1", "group_by"}}})
	if n := testutil.CollectAndCount(f.m.shapeConverged); n != 2 {
		t.Fatalf("converged series = %d, want one per distinct shape", n)
	}
	if n := testutil.CollectAndCount(f.m.shapeLatency); n != 0 {
		t.Fatalf("latency series = %d before any window, want none", n)
	}
	rec.Observe(event.Event{Kind: event.KindShapeWindow, Shape: event.ShapeState{Shape: "group_by", Probes: 40, Latest: 21 * time.Millisecond, Best: 20 * time.Millisecond, InARow: 3, Converged: true}})
	rec.Observe(event.Event{Kind: event.KindJITRead, JIT: event.JITState{Known: true, Rate: 0.02, Peak: 0.5, QuietInARow: 1}})

	if v := testutil.ToFloat64(f.m.shapeLatency.WithLabelValues("group_by")); v != 0.021 {
		t.Errorf("latency{group_by} = %v, want 0.021", v)
	}
	if v := testutil.ToFloat64(f.m.shapeConverged.WithLabelValues("group_by")); v != 1 {
		t.Errorf("converged{group_by} = %v, want 1", v)
	}
	if v := testutil.ToFloat64(f.m.compileRate.WithLabelValues()); v != 0.02 {
		t.Errorf("compile rate = %v, want 0.02", v)
	}
	_, body := f.get("/status")
	var s Status
	if err := json.Unmarshal([]byte(body), &s); err != nil {
		t.Fatal(err)
	}
	want := []ShapeStatus{{Shape: "limit1"}, {Shape: "group_by", Probes: 40, LatestMs: 21, BestMs: 20, InARow: 3, Converged: true}}
	if len(s.Shapes) != 2 || s.Shapes[0] != want[0] || s.Shapes[1] != want[1] {
		t.Errorf("shapes = %+v, want %+v", s.Shapes, want)
	}
	if s.JIT == nil || s.JIT.CompileRate != 0.02 || s.JIT.PeakRate != 0.5 || s.Exit != "converged" {
		t.Errorf("status jit %+v exit %q", s.JIT, s.Exit)
	}
	if !strings.Contains(body, `"latest_window_median_ms": 21`) || !strings.Contains(body, `"windows_in_a_row": 3`) {
		t.Errorf("status JSON names: %s", body)
	}

	rec.Observe(event.Event{Kind: event.KindJITUnavailable, Err: errors.New("reading JVM metrics from http://127.0.0.1:8008/metrics: HTTP 404")})
	if n := testutil.CollectAndCount(f.m.compileRate); n != 0 {
		t.Errorf("compile rate still exported after the signal was dropped")
	}
	if st := f.board.Snapshot(f.gate); st.JIT == nil || !strings.Contains(st.JIT.Error, "HTTP 404") {
		t.Errorf("status jit = %+v, want the error", st.JIT)
	}

	// A new run starts its shapes afresh and keeps the exit rule.
	f.board.StartRun(now, now.Add(15*time.Second))
	rec.Observe(event.Event{Kind: event.KindPlanned, Plan: prober.Plan{Custom: true, Queries: []string{"x"}}})
	st := f.board.Snapshot(f.gate)
	if len(st.Shapes) != 1 || st.Shapes[0].Shape != "custom_1" || st.JIT != nil || st.Exit != "converged" {
		t.Errorf("after a new run: shapes %+v jit %+v exit %q", st.Shapes, st.JIT, st.Exit)
	}
	if n := testutil.CollectAndCount(f.m.shapeConverged); n != 1 {
		t.Errorf("converged series = %d after the new plan, want its one shape", n)
	}
}

// Probe counts and durations carry the engine the probe ran on.
func TestRecorderLabelsTheEngine(t *testing.T) {
	f := newFixture(t)
	rec := Recorder{M: f.m, Board: NewStatusBoard(true, 10, time.Second, time.Now)}
	ok := pinot.Result{Class: pinot.Success}
	rec.Observe(event.Event{Kind: event.KindProbed, SQL: "SELECT 1 FROM t", Step: event.StepProbe, Result: ok, Latency: time.Millisecond})
	rec.Observe(event.Event{Kind: event.KindProbed, SQL: "SET useMultistageEngine=true; SELECT 1 FROM t", Step: event.StepProbe, Result: ok, Latency: time.Millisecond, MultiStage: true})
	rec.Observe(event.Event{Kind: event.KindProbed, SQL: "SET useMultistageEngine=true; SELECT 2 FROM t", Step: event.StepProbe,
		Result: pinot.Result{Class: pinot.Transient}, Latency: time.Millisecond, MultiStage: true})
	for series, want := range map[[2]string]float64{
		{ResultSuccess, EngineSingleStage}: 1,
		{ResultSuccess, EngineMultiStage}:  1,
		{ResultFailure, EngineMultiStage}:  1,
		{ResultFailure, EngineSingleStage}: 0,
	} {
		if got := testutil.ToFloat64(f.m.Probes.WithLabelValues(series[0], series[1])); got != want {
			t.Errorf("probes_total{result=%s,engine=%s} = %v, want %v", series[0], series[1], got, want)
		}
	}
	if n := testutil.CollectAndCount(f.m.ProbeDuration); n != 2 {
		t.Errorf("probe_duration_seconds has %d engine series, want 2", n)
	}
}

// The plan can be reported before the multi-stage engine answers its first
// query; what was found then reaches /status and the log through the run's
// fan-out of observers.
func TestEngineFoundAfterThePlanReachesStatusAndLog(t *testing.T) {
	f := newFixture(t)
	var logs bytes.Buffer
	obs := event.Observers{Recorder{M: f.m, Board: f.board}, NewLogObserver(slog.New(slog.NewTextHandler(&logs, nil)))}
	now := time.Now()
	f.board.StartRun(now, now.Add(15*time.Second))
	obs.Observe(event.Event{Kind: event.KindPlanned, Plan: prober.Plan{Custom: true, Queries: []string{"q1"}, Engine: prober.Engine{MultiStage: true, Found: "not known yet"}}})
	obs.Observe(event.Event{Kind: event.KindEngineFound, Engine: prober.Engine{MultiStage: true, Found: "the broker serves the multi-stage engine"}})

	s := f.status(t)
	if s.MultiStage == nil || !s.MultiStage.MultiStage || s.MultiStage.Found != "the broker serves the multi-stage engine" {
		t.Errorf("status multi_stage = %+v, want what the engine's answer showed", s.MultiStage)
	}
	if !strings.Contains(logs.String(), `msg="multi-stage engine" probed=true found="the broker serves the multi-stage engine"`) {
		t.Errorf("log:\n%s\nwant the engine's line", logs.String())
	}
}

// The engine that lends its workers says so once in the log, through the run's fan-out.
func TestEngineWarmIsLogged(t *testing.T) {
	var logs bytes.Buffer
	obs := event.Observers{NewLogObserver(slog.New(slog.NewTextHandler(&logs, nil)))}
	obs.Observe(event.Event{Kind: event.KindEngineWarm, MultiStage: false, Lent: 2})
	want := `msg="engine warm: its other workers help the engine still warming" engine=single-stage workers_lent=2`
	if !strings.Contains(logs.String(), want) {
		t.Errorf("log:\n%s\nwant %s", logs.String(), want)
	}
}

// Two workers closing windows of one shape can tell them out of order: the
// older window (fewer probes) arriving last must not replace the newer one in
// /status or the metrics.
func TestAnOlderShapeWindowArrivingLateIsDropped(t *testing.T) {
	f := newFixture(t)
	rec := Recorder{M: f.m, Board: f.board}
	now := time.Now()
	f.board.StartRun(now, now.Add(15*time.Second))
	rec.Observe(event.Event{Kind: event.KindPlanned, Plan: prober.Plan{Queries: []string{"a"}, Shapes: []string{"distinct"}}})
	newer := event.ShapeState{Shape: "distinct", Probes: 30, Latest: 9 * time.Millisecond, Best: 9 * time.Millisecond, InARow: 3, Converged: true}
	older := event.ShapeState{Shape: "distinct", Probes: 20, Latest: 40 * time.Millisecond, Best: 9 * time.Millisecond, InARow: 0}
	rec.Observe(event.Event{Kind: event.KindShapeWindow, Shape: newer})
	rec.Observe(event.Event{Kind: event.KindShapeWindow, Shape: older})
	if got := f.status(t).Shapes; len(got) != 1 || got[0] != shapeStatus(newer) {
		t.Errorf("status shapes %+v, want the newer window %+v", got, shapeStatus(newer))
	}
	if v := testutil.ToFloat64(f.m.shapeConverged.WithLabelValues("distinct")); v != 1 {
		t.Errorf("converged{distinct} = %v, want 1 (the newer window's)", v)
	}
	if v := testutil.ToFloat64(f.m.shapeLatency.WithLabelValues("distinct")); v != 0.009 {
		t.Errorf("latency{distinct} = %v, want 0.009 (the newer window's)", v)
	}
	// A later window still replaces it.
	newest := event.ShapeState{Shape: "distinct", Probes: 40, Latest: 8 * time.Millisecond, Best: 8 * time.Millisecond, InARow: 4, Converged: true}
	rec.Observe(event.Event{Kind: event.KindShapeWindow, Shape: newest})
	if got := f.status(t).Shapes; len(got) != 1 || got[0] != shapeStatus(newest) {
		t.Errorf("status shapes %+v, want the newest window %+v", got, shapeStatus(newest))
	}
}
