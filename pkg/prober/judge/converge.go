package judge

import (
	"slices"
	"sync"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/pkg/prober/event"
)

// ConvergeRule says when a shape's probe latency has stopped falling: the latest
// Windows windows of Window successful probes each have a median no lower than the
// band below the reference window's median. A window below the band (latency
// still falling) becomes the new reference and the count restarts; a slower window
// does not (on a busy machine latency is noisy upwards, and a spike is no sign of a
// cold path). The reference is the window that started the flat run, so a slow
// steady fall still restarts the count once it adds up to the band.
type ConvergeRule struct {
	// Window is the successful probes of one shape per window.
	Window int
	// Tolerance is the band's half-width relative to the reference (0.2: ±20%).
	Tolerance float64
	// NoiseFloor is the band's smallest half-width, so 1–2 ms probes whose
	// jitter exceeds the relative band still settle.
	NoiseFloor time.Duration
	// Windows is how many flat windows in a row mean converged.
	Windows int
}

// Default rule: a median of 10 ignores up to 4 stragglers; 3 flat windows after
// the reference need 40 successes per shape, seconds at most once the broker is
// warm, while a 10%-per-window decline still resets the count.
const (
	DefaultConvergeWindow     = 10
	DefaultConvergeTolerance  = 0.2
	DefaultConvergeNoiseFloor = time.Millisecond
	DefaultConvergeWindows    = 3
)

// withDefaults fills unset (zero or negative) fields with the defaults.
func (r ConvergeRule) withDefaults() ConvergeRule {
	r.Window = orDefault(r.Window, DefaultConvergeWindow)
	r.Tolerance = orDefault(r.Tolerance, DefaultConvergeTolerance)
	r.NoiseFloor = orDefault(r.NoiseFloor, DefaultConvergeNoiseFloor)
	r.Windows = orDefault(r.Windows, DefaultConvergeWindows)
	return r
}

// band is how far from ref a window median may be and still count as flat.
func (r ConvergeRule) band(ref time.Duration) time.Duration {
	return max(time.Duration(float64(ref)*r.Tolerance), r.NoiseFloor)
}

// Tracker applies a ConvergeRule to every query of a run, by shape. It does no
// I/O and is safe for concurrent use: several workers report at once.
//
// A shape's queries (one per table leg) are judged each against itself: a
// shape's window closes when every live query of it has its share of the
// window (at least minPerQuery probes), each query's median is compared with
// its own reference, and the window is flat only when no query fell below its
// band. So a table whose latency still falls resets its shape's count, however
// many other tables are flat, and which tables a window holds changes nothing.
type Tracker struct {
	rule ConvergeRule

	mu      sync.Mutex
	shapes  map[string]*shapeTrack
	order   []string           // shapes in first-seen order, for stable reports
	queries map[string]*member // by query (or by shape name, when a shape is fed as one)
}

type shapeTrack struct {
	state   event.ShapeState
	group   *group // the shape's own group, or its pool (converge_pool.go)
	members []*member
	dropped bool // Drop: no longer required, whatever its queries
}

// required: the shape holds Converged. A shape with no query yet is (its
// probes are to come); one whose queries were all dropped is not.
func (st *shapeTrack) required() bool {
	if st.dropped {
		return false
	}
	if len(st.members) == 0 {
		return true
	}
	for _, m := range st.members {
		if m.live {
			return true
		}
	}
	return false
}

// member is one query of a shape: its probes in the open window and the
// reference its windows are judged against.
type member struct {
	shape   *shapeTrack
	leg     string // the table leg it probes (pooled: judged with that leg's queries)
	live    bool
	samples []time.Duration
	ref     time.Duration
}

// group is the queries whose windows close together: one shape's, or a pool's.
type group struct {
	pooled  bool
	members []*member
	shapes  []*shapeTrack
	n       int                      // live members' probes in the open window
	legRef  map[string]time.Duration // pooled: each table leg's reference
	inARow  int
}

// minPerQuery is the fewest probes of each query in a shape's window: a median
// of 3 ignores one straggler. A shape with one query needs the whole Window.
const minPerQuery = 3

// perQuery is each live query's share of a shape's window: the Window split
// between them, at least minPerQuery each.
func (r ConvergeRule) perQuery(live int) int {
	if live <= 1 {
		return r.Window
	}
	return max(minPerQuery, (r.Window+live-1)/live)
}

// NewTracker tracks the given shapes, all required for Converged. Their queries
// are added with Add; a shape fed by its own name (Observe with the shape) is
// one query.
func NewTracker(rule ConvergeRule, shapes []string) *Tracker {
	t := &Tracker{rule: rule.withDefaults(), shapes: map[string]*shapeTrack{}, queries: map[string]*member{}}
	for _, s := range shapes {
		t.track(s)
	}
	return t
}

// track returns the shape's track, adding it (required) when new. Under t.mu or
// before t is shared.
func (t *Tracker) track(shape string) *shapeTrack {
	st := t.shapes[shape]
	if st == nil {
		st = &shapeTrack{state: event.ShapeState{Shape: shape}}
		st.group = &group{shapes: []*shapeTrack{st}}
		t.shapes[shape] = st
		t.order = append(t.order, shape)
	}
	return st
}

// Add tracks query as one of shape's: its probe of the table leg leg (""
// when it names none), live.
func (t *Tracker) Add(shape, leg, query string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.add(shape, leg, query)
}

func (t *Tracker) add(shape, leg, query string) *member {
	if m := t.queries[query]; m != nil {
		return m
	}
	st := t.track(shape)
	m := &member{shape: st, leg: leg, live: !st.dropped}
	st.members = append(st.members, m)
	st.group.members = append(st.group.members, m)
	t.queries[query] = m
	return m
}

// Observe adds one probe of query (a shape's name stands for the shape's one
// query). Failed probes say nothing about warmth and are not counted, nor are
// probes of a dropped query. It returns the states of the shapes whose window
// this probe closed: none, the query's shape, or (pooled) every shape of its pool.
func (t *Tracker) Observe(query string, latency time.Duration, ok bool) []event.ShapeState {
	t.mu.Lock()
	defer t.mu.Unlock()
	m := t.queries[query]
	if m == nil {
		m = t.add(query, "", query)
	}
	if !ok || !m.live {
		return nil
	}
	m.shape.state.Probes++
	g := m.shape.group
	if g.pooled {
		return t.observePooled(g, m, latency)
	}
	m.samples = append(m.samples, latency)
	g.n++
	live := g.live()
	need := t.rule.perQuery(len(live))
	for _, x := range live {
		if len(x.samples) < need {
			return nil
		}
	}
	restart, slowest := false, time.Duration(0)
	for _, x := range live {
		med := Median(x.samples)
		slowest = max(slowest, med)
		var inARow int
		if x.ref, inARow = t.rule.next(x.ref, 1, med); inARow == 0 {
			restart = true // a first window, or a query still getting faster
		}
	}
	if restart {
		g.inARow = 0
	} else {
		g.inARow++
	}
	g.clear()
	st := m.shape
	st.closed(slowest, g.inARow, t.rule.Windows)
	return []event.ShapeState{st.state}
}

// live lists the group's live queries.
func (g *group) live() []*member {
	out := make([]*member, 0, len(g.members))
	for _, m := range g.members {
		if m.live {
			out = append(out, m)
		}
	}
	return out
}

// clear empties the open window.
func (g *group) clear() {
	for _, m := range g.members {
		m.samples = m.samples[:0]
	}
	g.n = 0
}

// closed records a closed window in the shape's state: the shape's median in
// it and the flat windows in a row after it, need of which mean converged.
func (st *shapeTrack) closed(m time.Duration, inARow, need int) {
	s := &st.state
	s.Latest = m
	s.Best = minSet(s.Best, m)
	s.InARow, s.Converged = inARow, inARow >= need
}

// next applies the rule to a window's median m, given the reference and the
// flat windows in a row so far, and returns them after it.
func (r ConvergeRule) next(ref time.Duration, inARow int, m time.Duration) (time.Duration, int) {
	switch {
	case ref == 0: // the first window has nothing to be flat against
		return m, 0
	case m >= ref-r.band(ref):
		// Not below the band: latency has not fallen. A slower window (a GC
		// pause, a busy server) is no sign of a cold path, so it counts too.
		return ref, inARow + 1
	default: // still falling: start over from this window
		return m, 0
	}
}

// minSet is the smaller of best and m, where a zero best is not set yet.
func minSet(best, m time.Duration) time.Duration {
	if best == 0 {
		return m
	}
	return min(best, m)
}

// Drop stops requiring shape for Converged (its queries were all dropped).
func (t *Tracker) Drop(shape string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if st := t.shapes[shape]; st != nil {
		st.dropped = true
		for _, m := range st.members {
			t.dropMember(m)
		}
	}
}

// DropQuery stops judging query: its shape is judged on its other queries, and
// is no longer required when it has none left.
func (t *Tracker) DropQuery(query string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if m := t.queries[query]; m != nil {
		t.dropMember(m)
	}
}

// keepOnly stops judging every query not in live: a shape is judged on its
// live queries, and is no longer required when it has none left.
func (t *Tracker) keepOnly(live []string) {
	keep := make(map[string]bool, len(live))
	for _, q := range live {
		keep[q] = true
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	for q, m := range t.queries {
		if !keep[q] {
			t.dropMember(m)
		}
	}
}

// dropMember takes m out of its group's open window. Under t.mu.
func (t *Tracker) dropMember(m *member) {
	if !m.live {
		return
	}
	m.live = false
	m.shape.group.n -= len(m.samples)
	m.samples = nil
}

// Converged reports whether every required shape has converged; false when
// nothing is required, since then there is no evidence at all.
func (t *Tracker) Converged() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.allConverged(t.order)
}

// ConvergedAmong is Converged over some of the shapes (one engine's). A shape it
// does not track has no probes yet: not converged.
func (t *Tracker) ConvergedAmong(shapes []string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.allConverged(shapes)
}

// allConverged: every required shape of shapes converged, and one at least is
// required. Under t.mu.
func (t *Tracker) allConverged(shapes []string) bool {
	some := false
	for _, s := range shapes {
		st := t.shapes[s]
		switch {
		case st == nil:
			return false
		case !st.required():
		case !st.state.Converged:
			return false
		default:
			some = true
		}
	}
	return some
}

// States lists every required shape's state in first-seen order.
func (t *Tracker) States() []event.ShapeState {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]event.ShapeState, 0, len(t.order))
	for _, s := range t.order {
		if st := t.shapes[s]; st.required() {
			out = append(out, st.state)
		}
	}
	return out
}

// Rule is the tracker's rule, defaults filled in.
func (t *Tracker) Rule() ConvergeRule { return t.rule }

// Median is the middle of ds (the mean of the two middle ones for an even
// count); 0 for none. The project's one median: a shape's windows here, the
// first and last probes in /status.
func Median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}
