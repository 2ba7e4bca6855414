package judge

import (
	"math/rand/v2"
	"strconv"
	"testing"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/pkg/prober/event"
)

const ms = time.Millisecond

// flat is n latencies at d.
func flat(n int, d time.Duration) []time.Duration {
	out := make([]time.Duration, n)
	for i := range out {
		out[i] = d
	}
	return out
}

// falling is n latencies from hi down to lo, linearly.
func falling(n int, hi, lo time.Duration) []time.Duration {
	out := make([]time.Duration, n)
	for i := range out {
		out[i] = hi - time.Duration(float64(hi-lo)*float64(i)/float64(n-1))
	}
	return out
}

// geometric is n latencies from start, each window of 10 a factor lower than the last.
func geometric(n int, start time.Duration, perWindow float64) []time.Duration {
	out := make([]time.Duration, n)
	d := float64(start)
	for i := range out {
		if i > 0 && i%10 == 0 {
			d *= perWindow
		}
		out[i] = time.Duration(d)
	}
	return out
}

// noisy is n latencies around d, each off by up to ±spread (a fraction), from a fixed seed.
func noisy(n int, d time.Duration, spread float64, seed uint64) []time.Duration {
	r := rand.New(rand.NewPCG(seed, seed))
	out := make([]time.Duration, n)
	for i := range out {
		out[i] = time.Duration(float64(d) * (1 + spread*(2*r.Float64()-1)))
	}
	return out
}

func cat(parts ...[]time.Duration) []time.Duration {
	var out []time.Duration
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

type shapeFeed struct {
	shape string
	lats  []time.Duration
}

// feedRoundRobin interleaves the feeds probe by probe, as rounds over several shapes do.
func feedRoundRobin(tr *Tracker, feeds ...shapeFeed) {
	for i := 0; ; i++ {
		fed := false
		for _, f := range feeds {
			if i < len(f.lats) {
				tr.Observe(f.shape, f.lats[i], true)
				fed = true
			}
		}
		if !fed {
			return
		}
	}
}

func stateOf(t *testing.T, tr *Tracker, shape string) event.ShapeState {
	t.Helper()
	for _, s := range tr.States() {
		if s.Shape == shape {
			return s
		}
	}
	t.Fatalf("shape %q not in %+v", shape, tr.States())
	return event.ShapeState{}
}

func TestTrackerRule(t *testing.T) {
	cases := []struct {
		name      string
		shapes    []string
		feeds     []shapeFeed
		converged bool
		// per-shape expectations, checked when set
		inARow map[string]int
		best   map[string]time.Duration
	}{
		{
			name:      "falling then flat converges",
			shapes:    []string{"limit1"},
			feeds:     []shapeFeed{{"limit1", cat(falling(50, 80*ms, 5*ms), flat(40, 5*ms))}},
			converged: true,
			inARow:    map[string]int{"limit1": 3},
			best:      map[string]time.Duration{"limit1": 5 * ms},
		},
		{
			name:      "falling then flat, one window short",
			shapes:    []string{"limit1"},
			feeds:     []shapeFeed{{"limit1", cat(falling(50, 80*ms, 5*ms), flat(30, 5*ms))}},
			converged: false,
			inARow:    map[string]int{"limit1": 2},
		},
		{
			name:      "still falling 15% a window never converges",
			shapes:    []string{"agg"},
			feeds:     []shapeFeed{{"agg", geometric(200, 100*ms, 0.85)}},
			converged: false,
		},
		{
			name:      "still falling steeply never converges",
			shapes:    []string{"agg"},
			feeds:     []shapeFeed{{"agg", geometric(100, 400*ms, 0.6)}},
			converged: false,
			inARow:    map[string]int{"agg": 0},
		},
		{
			name:      "noisy flat (±20% per probe) converges at once",
			shapes:    []string{"group_by"},
			feeds:     []shapeFeed{{"group_by", noisy(40, 20*ms, 0.2, 7)}},
			converged: true,
		},
		{
			// A spread this wide can take several references to settle: the feed leaves room.
			name:      "noisy flat (±40% per probe) converges",
			shapes:    []string{"group_by"},
			feeds:     []shapeFeed{{"group_by", noisy(250, 20*ms, 0.4, 7)}},
			converged: true,
		},
		{
			name:      "1-2 ms probes settle on the noise floor",
			shapes:    []string{"limit1"},
			feeds:     []shapeFeed{{"limit1", cat(flat(10, 1*ms), flat(10, 1900*time.Microsecond), flat(10, 1*ms), flat(10, 1800*time.Microsecond))}},
			converged: true,
		},
		{
			name:   "a window that falls below the band resets that shape only",
			shapes: []string{"a", "b"},
			feeds: []shapeFeed{
				{"a", flat(60, 10*ms)},
				{"b", cat(flat(40, 10*ms), flat(20, 5*ms))},
			},
			converged: false,
			inARow:    map[string]int{"a": 5, "b": 1},
		},
		{
			name:   "the shape that fell converges again after enough flat windows",
			shapes: []string{"a", "b"},
			feeds: []shapeFeed{
				{"a", flat(90, 10*ms)},
				{"b", cat(flat(40, 10*ms), flat(40, 5*ms))},
			},
			converged: true,
			inARow:    map[string]int{"a": 8, "b": 3},
		},
		{
			name:   "a slower window (a GC pause) is no sign of a cold path: it does not reset",
			shapes: []string{"a"},
			feeds: []shapeFeed{
				{"a", cat(flat(20, 10*ms), flat(10, 100*ms), flat(10, 10*ms))},
			},
			converged: true,
			inARow:    map[string]int{"a": 3},
		},
		{
			name:      "many shapes, all flat",
			shapes:    []string{"s1", "s2", "s3", "s4", "s5", "s6", "s7", "s8", "s9", "s10", "s11", "s12"},
			feeds:     manyFlat(12, 40),
			converged: true,
		},
		{
			name:      "many shapes, one still short of its last window",
			shapes:    []string{"s1", "s2", "s3", "s4", "s5", "s6", "s7", "s8", "s9", "s10", "s11", "s12"},
			feeds:     append(manyFlat(11, 40), shapeFeed{"s12", flat(39, 3*ms)}),
			converged: false,
			inARow:    map[string]int{"s1": 3, "s12": 2},
		},
		{
			name:   "a shape that never gets enough probes blocks",
			shapes: []string{"common", "rare"},
			feeds: []shapeFeed{
				{"common", flat(100, 5*ms)},
				{"rare", flat(9, 5*ms)},
			},
			converged: false,
			inARow:    map[string]int{"common": 9, "rare": 0},
		},
		{
			name:      "a planned shape never probed blocks",
			shapes:    []string{"common", "never"},
			feeds:     []shapeFeed{{"common", flat(100, 5*ms)}},
			converged: false,
		},
		{
			name:      "nothing probed is not converged",
			shapes:    []string{"limit1"},
			converged: false,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tr := NewTracker(ConvergeRule{}, tc.shapes)
			feedRoundRobin(tr, tc.feeds...)
			if got := tr.Converged(); got != tc.converged {
				t.Errorf("Converged() = %v, want %v; states %+v", got, tc.converged, tr.States())
			}
			for shape, want := range tc.inARow {
				if got := stateOf(t, tr, shape).InARow; got != want {
					t.Errorf("%s: InARow = %d, want %d", shape, got, want)
				}
			}
			for shape, want := range tc.best {
				if got := stateOf(t, tr, shape).Best; got != want {
					t.Errorf("%s: Best = %s, want %s", shape, got, want)
				}
			}
		})
	}
}

func manyFlat(n, probes int) []shapeFeed {
	out := make([]shapeFeed, n)
	for i := range out {
		// Each shape has its own level: convergence is per shape, not across them.
		out[i] = shapeFeed{shape: "s" + strconv.Itoa(i+1), lats: flat(probes, time.Duration(i+1)*3*ms)}
	}
	return out
}

func TestTrackerNoiseFloorIsWhatSettlesFastProbes(t *testing.T) {
	// Sub-millisecond steps down of 1-2 ms probes: each more than 20%, none a
	// millisecond. Only the noise floor tells them from a cold path.
	lats := cat(flat(10, 1900*time.Microsecond), flat(10, 1500*time.Microsecond), flat(10, 1200*time.Microsecond), flat(10, 950*time.Microsecond))
	tr := NewTracker(ConvergeRule{NoiseFloor: time.Nanosecond}, []string{"limit1"})
	feedRoundRobin(tr, shapeFeed{"limit1", lats})
	if tr.Converged() {
		t.Fatalf("converged without a noise floor: %+v", tr.States())
	}
	tr = NewTracker(ConvergeRule{}, []string{"limit1"})
	feedRoundRobin(tr, shapeFeed{"limit1", lats})
	if !tr.Converged() {
		t.Fatalf("not converged with the default 1 ms noise floor: %+v", tr.States())
	}
}

func TestTrackerWindowMediansAndFailures(t *testing.T) {
	tr := NewTracker(ConvergeRule{}, []string{"q"})
	// Failed probes, however slow, are not part of any window.
	for range 25 {
		tr.Observe("q", time.Minute, false)
	}
	lats := []time.Duration{9 * ms, 1 * ms, 8 * ms, 2 * ms, 7 * ms, 3 * ms, 6 * ms, 4 * ms, 5 * ms, 500 * ms}
	var closed int
	for _, l := range lats {
		if closed1 := tr.Observe("q", l, true); len(closed1) == 1 {
			closed++
		}
	}
	s := stateOf(t, tr, "q")
	if closed != 1 || s.Probes != 10 {
		t.Fatalf("closed %d windows over %d probes, want 1 over 10", closed, s.Probes)
	}
	// Sorted: 1..9, 500 → median of the middle two (5, 6).
	if s.Latest != 5500*time.Microsecond || s.Best != s.Latest {
		t.Fatalf("latest %s best %s, want 5.5ms for both", s.Latest, s.Best)
	}
}

func TestTrackerDropReleasesAShape(t *testing.T) {
	tr := NewTracker(ConvergeRule{}, []string{"good", "dropped"})
	feedRoundRobin(tr, shapeFeed{"good", flat(40, 4*ms)})
	if tr.Converged() {
		t.Fatal("converged while a required shape has no probes")
	}
	tr.Drop("dropped")
	if !tr.Converged() {
		t.Fatalf("not converged after the unprobed shape was dropped: %+v", tr.States())
	}
	if n := len(tr.States()); n != 1 {
		t.Errorf("states list %d shapes, want only the required one", n)
	}
}

func TestTrackerCustomRule(t *testing.T) {
	// Window 5, 2 flat windows: 15 probes are enough.
	tr := NewTracker(ConvergeRule{Window: 5, Windows: 2}, []string{"q"})
	feedRoundRobin(tr, shapeFeed{"q", flat(14, 2*ms)})
	if tr.Converged() {
		t.Fatal("converged one probe early")
	}
	tr.Observe("q", 2*ms, true)
	if !tr.Converged() {
		t.Fatalf("not converged after 3 windows of 5: %+v", tr.States())
	}
	if r := tr.Rule(); r.Tolerance != DefaultConvergeTolerance || r.NoiseFloor != DefaultConvergeNoiseFloor {
		t.Errorf("unset fields not defaulted: %+v", r)
	}
}

// Five tables' queries of one shape, two of them halving their latency every
// window: the shape is not converged however flat the other three are, and
// converges once the two are flat too. Each query's window has its own share
// (at least 3 probes), so its median is its own.
func TestTrackerJudgesEachQueryOfAShape(t *testing.T) {
	tr := NewTracker(ConvergeRule{}, []string{"agg"})
	legs := []string{"t1", "t2", "t3", "t4", "t5"}
	for _, q := range legs {
		tr.Add("agg", q, q)
	}
	level := 1600 * ms
	for w := range 12 { // twelve windows of 3 probes of each leg
		for range 3 {
			for i, q := range legs {
				d := 4 * ms
				if i >= 3 {
					d = level
				}
				tr.Observe(q, d, true)
			}
		}
		if w < 8 {
			level /= 2 // still halving
		}
		if w < 9 && tr.Converged() {
			t.Fatalf("converged after window %d while two of five tables still halve their latency: %+v", w, tr.States())
		}
	}
	if !tr.Converged() {
		t.Fatalf("not converged after every table was flat for three windows: %+v", tr.States())
	}
	if st := stateOf(t, tr, "agg"); st.Probes != 12*3*5 || st.Latest != 1600*ms>>8 {
		t.Errorf("state %+v, want every probe counted and the slowest table's median as the latest", st)
	}
}
