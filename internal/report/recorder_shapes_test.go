package report

import (
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/warmup-sidecar/warmup-sidecar/pkg/prober"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/prober/event"
)

// A plan told again within a run (the plan without the multi-stage queries once
// the engine is found absent, the LIMIT 1 fallback) keeps what the shapes
// still planned have shown in /status and pinot_warmup_shape_converged; only
// the shapes no longer planned leave, and new ones start at zero.
func TestAReplanKeepsTheShapesStillPlanned(t *testing.T) {
	f := newFixture(t)
	rec := Recorder{M: f.m, Board: f.board}
	now := time.Now()
	f.board.StartRun(now, now.Add(15*time.Second))
	const mse = "SET useMultistageEngine=true; SELECT COUNT(*) FROM orders GROUP BY city"
	first := prober.Plan{Queries: []string{"SELECT COUNT(*) FROM orders GROUP BY city", mse}, Shapes: []string{"group_by", "mse_group_by"}}
	rec.Observe(event.Event{Kind: event.KindPlanned, Plan: first})
	groupBy := event.ShapeState{Shape: "group_by", Probes: 40, Latest: 21 * time.Millisecond, Best: 20 * time.Millisecond, InARow: 3, Converged: true}
	rec.Observe(event.Event{Kind: event.KindShapeWindow, Shape: groupBy})

	// The engine is absent: the plan without its queries, and a shape new to the run.
	rec.Observe(event.Event{Kind: event.KindPlanned, Plan: prober.Plan{
		Queries: []string{"SELECT COUNT(*) FROM orders GROUP BY city", "SELECT * FROM orders LIMIT 1"}, Shapes: []string{"group_by", "limit1"}}})

	want := []ShapeStatus{shapeStatus(groupBy), {Shape: "limit1"}}
	if got := f.status(t).Shapes; len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("status shapes after the re-plan %+v, want %+v", got, want)
	}
	if v := testutil.ToFloat64(f.m.shapeConverged.WithLabelValues("group_by")); v != 1 {
		t.Errorf("converged{group_by} = %v after the re-plan, want 1 (its state kept)", v)
	}
	if v := testutil.ToFloat64(f.m.shapeLatency.WithLabelValues("group_by")); v != 0.021 {
		t.Errorf("latency{group_by} = %v after the re-plan, want 0.021 (its state kept)", v)
	}
	if n := testutil.CollectAndCount(f.m.shapeConverged); n != 2 {
		t.Errorf("converged series = %d after the re-plan, want the 2 shapes still planned (mse_group_by gone)", n)
	}
	if n := testutil.CollectAndCount(f.m.shapeLatency); n != 1 {
		t.Errorf("latency series = %d after the re-plan, want group_by's only", n)
	}

	// A new run still starts every shape afresh, those of the run before included.
	f.board.StartRun(now, now.Add(15*time.Second))
	rec.Observe(event.Event{Kind: event.KindPlanned, Plan: first})
	if got := f.status(t).Shapes; len(got) != 2 || got[0] != (ShapeStatus{Shape: "group_by"}) || got[1] != (ShapeStatus{Shape: "mse_group_by", Pooled: true}) {
		t.Errorf("status shapes of a new run %+v, want both afresh", got)
	}
	if v := testutil.ToFloat64(f.m.shapeConverged.WithLabelValues("group_by")); v != 0 {
		t.Errorf("converged{group_by} = %v in a new run, want 0", v)
	}
	if n := testutil.CollectAndCount(f.m.shapeLatency); n != 0 {
		t.Errorf("latency series = %d in a new run before any window, want none", n)
	}
}
