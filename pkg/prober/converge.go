package prober

import (
	"slices"
	"sync"
	"time"
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

// orDefault is v, or d when v is unset (zero or negative).
func orDefault[T int | float64 | time.Duration](v, d T) T {
	if v <= 0 {
		return d
	}
	return v
}

// band is how far from ref a window median may be and still count as flat.
func (r ConvergeRule) band(ref time.Duration) time.Duration {
	return max(time.Duration(float64(ref)*r.Tolerance), r.NoiseFloor)
}

// ShapeState is one shape's convergence so far.
type ShapeState struct {
	Shape string
	// Probes counts the shape's successful probes.
	Probes int
	// Latest is the median of the latest complete window; 0 before the first.
	Latest time.Duration
	// Best is the smallest window median seen; 0 before the first window.
	Best time.Duration
	// InARow counts the flat windows in a row ending with the latest.
	InARow    int
	Converged bool
	// Pooled: the shape's windows and verdict are its engine's (converge_pool.go).
	Pooled bool
}

// Tracker applies a ConvergeRule to every shape of a run. It does no I/O and is
// safe for concurrent use: probes of one round report from several goroutines.
type Tracker struct {
	rule ConvergeRule

	mu     sync.Mutex
	shapes map[string]*shapeTrack
	order  []string // shapes in first-seen order, for stable reports
}

type shapeTrack struct {
	state    ShapeState
	ref      time.Duration // median of the window the current flat run is measured against
	window   []time.Duration
	required bool
	pool     *pool // non-nil: the shape's windows are its pool's (converge_pool.go)
}

// NewTracker tracks the given shapes, all required for Converged.
func NewTracker(rule ConvergeRule, shapes []string) *Tracker {
	t := &Tracker{rule: rule.withDefaults(), shapes: map[string]*shapeTrack{}}
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
		st = &shapeTrack{state: ShapeState{Shape: shape}, window: make([]time.Duration, 0, t.rule.Window), required: true}
		t.shapes[shape] = st
		t.order = append(t.order, shape)
	}
	return st
}

// Observe adds one probe. Failed probes say nothing about warmth and are not
// counted. It returns the states of the shapes whose window this probe closed:
// none, the shape's own, or (a pooled shape) every shape of its pool.
func (t *Tracker) Observe(shape string, latency time.Duration, ok bool) []ShapeState {
	t.mu.Lock()
	defer t.mu.Unlock()
	st := t.track(shape)
	if !ok {
		return nil
	}
	st.state.Probes++
	if st.pool != nil {
		return t.observePooled(st, latency)
	}
	st.window = append(st.window, latency)
	if len(st.window) < t.rule.Window {
		return nil
	}
	m := median(st.window)
	st.window = st.window[:0]
	var inARow int
	st.ref, inARow = t.rule.next(st.ref, st.state.InARow, m)
	st.state.closed(m, inARow, t.rule.Windows)
	return []ShapeState{st.state}
}

// closed records a closed window: the shape's median in it and the flat
// windows in a row after it, need of which mean converged.
func (s *ShapeState) closed(m time.Duration, inARow, need int) {
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
		st.required = false
	}
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
		case !st.required:
		case !st.state.Converged:
			return false
		default:
			some = true
		}
	}
	return some
}

// States lists every required shape's state in first-seen order.
func (t *Tracker) States() []ShapeState {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]ShapeState, 0, len(t.order))
	for _, s := range t.order {
		if st := t.shapes[s]; st.required {
			out = append(out, st.state)
		}
	}
	return out
}

// Rule is the tracker's rule, defaults filled in.
func (t *Tracker) Rule() ConvergeRule { return t.rule }

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}
