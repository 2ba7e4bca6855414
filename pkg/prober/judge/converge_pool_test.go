package judge

import (
	"strconv"
	"testing"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/pkg/prober/event"
)

// poolShapes names n shapes mse_1..mse_n.
func poolShapes(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = "mse_" + strconv.Itoa(i+1)
	}
	return out
}

// rotate feeds rounds of one probe per shape (a lane's rotation), shape i at
// level(round, i).
func rotate(tr *Tracker, shapes []string, rounds int, level func(round, i int) time.Duration) {
	for r := range rounds {
		for i, s := range shapes {
			tr.Observe(s, level(r, i), true)
		}
	}
}

// Thirteen multi-stage shapes, each at its own level, one probe per rotation:
// the pool converges after four passes (a reference window and three flat ones,
// 52 probes) where the per-shape rule needs forty probes of every shape.
func TestPoolConvergesOnFourPassesOfTheEngine(t *testing.T) {
	shapes := poolShapes(13)
	level := func(_, i int) time.Duration { return time.Duration(20+7*i) * ms }

	tr := NewTracker(ConvergeRule{}, shapes)
	tr.Pool(shapes)
	rotate(tr, shapes, 3, level)
	for i, s := range shapes[:12] {
		tr.Observe(s, level(3, i), true)
	}
	if tr.Converged() {
		t.Fatalf("converged one probe short of four passes: %+v", tr.States())
	}
	tr.Observe(shapes[12], level(3, 12), true)
	if !tr.Converged() {
		t.Fatalf("not converged after four flat passes: %+v", tr.States())
	}
	for _, st := range tr.States() {
		if st.InARow != 3 || st.Probes != 4 || st.Latest == 0 {
			t.Errorf("%s: %+v, want 3 flat windows over its 4 probes and its own latest median", st.Shape, st)
		}
	}

	alone := NewTracker(ConvergeRule{}, shapes)
	rotate(alone, shapes, 4, level)
	if alone.Converged() {
		t.Fatal("the per-shape rule converged on four probes per shape: the pool test proves nothing")
	}
}

// The pool's statistic weighs each shape alike: a window that happened to
// catch the slow join nine times and the fast aggregation once is as flat as
// the reverse. A median over all the window's probes would swing between the
// two levels and restart the count at every swing down.
func TestPoolWindowWeighsShapesAlike(t *testing.T) {
	tr := NewTracker(ConvergeRule{}, []string{"mse_agg", "mse_join"})
	tr.Pool([]string{"mse_agg", "mse_join"})
	for w := range 4 {
		fast, slow := 1, 9
		if w%2 == 1 {
			fast, slow = 9, 1
		}
		for range fast {
			tr.Observe("mse_agg", 5*ms, true)
		}
		for range slow {
			tr.Observe("mse_join", 100*ms, true)
		}
	}
	if !tr.Converged() {
		t.Fatalf("alternating mixes of two flat shapes did not converge: %+v", tr.States())
	}
}

func TestPoolStillFallingNeverConverges(t *testing.T) {
	shapes := poolShapes(5)
	tr := NewTracker(ConvergeRule{}, shapes)
	tr.Pool(shapes)
	// Two passes of five shapes close a window (10 probes); each window 30% faster.
	d := 400.0
	for range 10 {
		rotate(tr, shapes, 2, func(int, int) time.Duration { return time.Duration(d) * ms })
		d *= 0.7
	}
	if tr.Converged() {
		t.Fatalf("an engine still 30%% faster every window converged: %+v", tr.States())
	}
}

// A pooled shape that never answers holds the pool's windows (as a shape of its
// own would hold the run); dropping it releases them, and the others' samples
// stay bounded meanwhile.
func TestPoolShapeThatNeverAnswersHoldsUntilDropped(t *testing.T) {
	shapes := poolShapes(3)
	tr := NewTracker(ConvergeRule{}, shapes)
	tr.Pool(shapes)
	for range 5000 {
		tr.Observe(shapes[0], 10*ms, true)
		tr.Observe(shapes[1], 20*ms, true)
		tr.Observe(shapes[2], time.Minute, false)
	}
	if tr.Converged() {
		t.Fatal("converged while a pooled shape never answered")
	}
	for _, m := range tr.shapes[shapes[0]].group.members {
		if len(m.samples) > tr.rule.Window {
			t.Fatalf("%s holds %d samples, want at most a window's %d", m.shape.state.Shape, len(m.samples), tr.rule.Window)
		}
	}
	tr.Drop(shapes[2])
	rotate(tr, shapes[:2], 20, func(_, i int) time.Duration { return time.Duration(10*(i+1)) * ms })
	if !tr.Converged() {
		t.Fatalf("not converged after the silent shape was dropped: %+v", tr.States())
	}
}

// Every shape of the pool is told when the pool's window closes, so the
// per-shape trend (metrics, /status) moves for each.
func TestPoolWindowClosesForEveryShape(t *testing.T) {
	shapes := poolShapes(10)
	tr := NewTracker(ConvergeRule{}, shapes)
	tr.Pool(shapes)
	var told []event.ShapeState
	for i, s := range shapes {
		told = tr.Observe(s, time.Duration(i+1)*ms, true)
	}
	if len(told) != len(shapes) {
		t.Fatalf("the closing probe told %d shapes, want all %d: %+v", len(told), len(shapes), told)
	}
	for i, st := range told {
		if st.Latest != time.Duration(i+1)*ms {
			t.Errorf("%s: latest %s, want its own median %s", st.Shape, st.Latest, time.Duration(i+1)*ms)
		}
	}
}

// Probes of a dropped multi-stage query (answers still in flight when it was
// dropped, or its twin's) count for nothing: the pool's window closes on ten
// probes of its live queries, not sooner.
func TestPoolCountsNoProbeOfADroppedShape(t *testing.T) {
	shapes := poolShapes(3)
	tr := NewTracker(ConvergeRule{}, shapes)
	tr.Pool(shapes)
	tr.Drop(shapes[2])
	for range 9 {
		if told := tr.Observe(shapes[2], ms, true); len(told) > 0 {
			t.Fatalf("a dropped shape's probe closed a window: %+v", told)
		}
	}
	for i := range 9 {
		if told := tr.Observe(shapes[i%2], 10*ms, true); len(told) > 0 {
			t.Fatalf("the window closed after %d probes of the live shapes (and 9 of the dropped one): %+v", i+1, told)
		}
	}
	if told := tr.Observe(shapes[1], 10*ms, true); len(told) != 2 {
		t.Fatalf("the tenth live probe told %+v, want the two live shapes' window", told)
	}
}

// The pool judges each table leg against itself: one leg's multi-stage
// queries still halving every window keep the engine unconverged, though the
// median over all the engine's queries (the other leg's, flat) would not move.
func TestPoolJudgesEachTableLeg(t *testing.T) {
	shapes := poolShapes(4)
	tr := NewTracker(ConvergeRule{}, shapes)
	for _, s := range shapes {
		tr.Add(s, "flat_OFFLINE", s+" flat")
	}
	for _, s := range shapes[:2] {
		tr.Add(s, "cold_REALTIME", s+" cold")
	}
	tr.Pool(shapes)
	cold := 2048 * ms
	for w := range 12 { // windows of one probe of each of the 6 queries, and 4 more
		for _, s := range shapes {
			tr.Observe(s+" flat", 10*ms, true)
		}
		for _, s := range shapes[:2] {
			tr.Observe(s+" cold", cold, true)
		}
		for _, s := range shapes {
			tr.Observe(s+" flat", 10*ms, true)
		}
		if w < 8 {
			cold /= 2
		}
		if w < 9 && tr.Converged() {
			t.Fatalf("converged after window %d while a table's multi-stage queries still halve: %+v", w, tr.States())
		}
	}
	if !tr.Converged() {
		t.Fatalf("not converged after both tables were flat for three windows: %+v", tr.States())
	}
}
