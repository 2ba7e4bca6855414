package gatehttp

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/warmup-sidecar/warmup-sidecar/pkg/prober"
)

func TestConvergenceMetricsArePromlintClean(t *testing.T) {
	f := newFixture(t)
	rec := Recorder{M: f.m, Board: f.board}
	rec.Planned(prober.Plan{Custom: true, Queries: []string{"q1"}, Shapes: []string{"agg_metrics"}})
	rec.ShapeWindow(prober.ShapeState{Shape: "agg_metrics", Probes: 10, Latest: 12 * time.Millisecond, Best: 12 * time.Millisecond})
	rec.JITRead(prober.JITState{Known: true, Rate: 0.4, Peak: 0.4})
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
	rec.Planned(prober.Plan{Queries: []string{"a", "b", "c"}, Shapes: []string{"limit1", "limit1", "group_by"}})
	if n := testutil.CollectAndCount(f.m.shapeConverged); n != 2 {
		t.Fatalf("converged series = %d, want one per distinct shape", n)
	}
	if n := testutil.CollectAndCount(f.m.shapeLatency); n != 0 {
		t.Fatalf("latency series = %d before any window, want none", n)
	}
	rec.ShapeWindow(prober.ShapeState{Shape: "group_by", Probes: 40, Latest: 21 * time.Millisecond, Best: 20 * time.Millisecond, InARow: 3, Converged: true})
	rec.JITRead(prober.JITState{Known: true, Rate: 0.02, Peak: 0.5, QuietInARow: 1})

	if v := testutil.ToFloat64(f.m.shapeLatency.WithLabelValues("group_by")); v != 0.021 {
		t.Errorf("latency{group_by} = %v, want 0.021", v)
	}
	if v := testutil.ToFloat64(f.m.shapeConverged.WithLabelValues("group_by")); v != 1 {
		t.Errorf("converged{group_by} = %v, want 1", v)
	}
	if v := testutil.ToFloat64(f.m.compileRate.WithLabelValues()); v != 0.02 {
		t.Errorf("compile rate = %v, want 0.02", v)
	}
	_, body := get(t, f.srv.URL+"/status")
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

	rec.JITUnavailable(errors.New("reading JVM metrics from http://127.0.0.1:8008/metrics: HTTP 404"))
	if n := testutil.CollectAndCount(f.m.compileRate); n != 0 {
		t.Errorf("compile rate still exported after the signal was dropped")
	}
	if st := f.board.Snapshot(f.gate); st.JIT == nil || !strings.Contains(st.JIT.Error, "HTTP 404") {
		t.Errorf("status jit = %+v, want the error", st.JIT)
	}

	// A new run starts its shapes afresh and keeps the exit rule.
	f.board.StartRun(now, now.Add(15*time.Second))
	rec.Planned(prober.Plan{Custom: true, Queries: []string{"x"}})
	st := f.board.Snapshot(f.gate)
	if len(st.Shapes) != 1 || st.Shapes[0].Shape != "custom_1" || st.JIT != nil || st.Exit != "converged" {
		t.Errorf("after a new run: shapes %+v jit %+v exit %q", st.Shapes, st.JIT, st.Exit)
	}
	if n := testutil.CollectAndCount(f.m.shapeConverged); n != 1 {
		t.Errorf("converged series = %d after the new plan, want its one shape", n)
	}
}
