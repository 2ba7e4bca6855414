package judge

import (
	"fmt"
	"sync"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/pkg/prober/event"
)

// jitSignal is the run's JIT signal: nil when no source is watched. A failed
// reading keeps the last readings (the exit judges them) and the next tick
// reads again; JITRule.Failures failures in a row give the source up for the
// rest of the run, so a wrong or unreachable URL holds the gate a few seconds
// at most.
type jitSignal struct {
	mu     sync.Mutex
	t      *jitTracker
	state  event.JITState
	inARow int   // failed readings in a row
	err    error // set once the source is given up
}

func newJITSignal(rule JITRule) *jitSignal { return &jitSignal{t: newJITTracker(rule)} }

func (w *jitSignal) add(at time.Time, total time.Duration) event.JITState {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.inARow = 0
	w.state = w.t.add(at, total)
	return w.state
}

// failed counts a failed reading (err nil: none) against the streak that gives
// the source up; inARow is the streak so far.
func (w *jitSignal) failed(err error) (inARow int, gaveUp bool) {
	if err == nil {
		return 0, false
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.inARow++
	if w.inARow >= w.t.rule.Failures && w.err == nil {
		w.err = fmt.Errorf("%d readings in a row failed, the last: %w", w.inARow, err)
	}
	return w.inARow, w.err != nil
}

// givenUp is why the source was given up (nil while it is not).
func (w *jitSignal) givenUp() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

// quietOrIgnored is true when the JIT does not hold the exit: no source, a
// failed source, or a quiet compiler.
func (w *jitSignal) quietOrIgnored() bool {
	if w == nil {
		return true
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err != nil || w.state.Quiet
}

// describe says where the JIT signal stands, for a run's reason; "" without a source.
func (w *jitSignal) describe() string {
	if w == nil {
		return ""
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	s := w.state
	var out string
	switch {
	case w.err != nil:
		return "JIT signal ignored (JVM metrics unavailable)"
	case !s.Known:
		out = "JIT compile rate not known yet"
	case s.Quiet:
		out = fmt.Sprintf("JIT compile rate %.3f s/s, %.0f%% of its %.3f s/s peak", s.Rate, pct(s.Rate, s.Peak), s.Peak)
	default:
		out = fmt.Sprintf("JIT still compiling (%.3f s/s, %.0f%% of its %.3f s/s peak)", s.Rate, pct(s.Rate, s.Peak), s.Peak)
	}
	if w.inARow > 0 {
		out += fmt.Sprintf(" (last reading; %d failed readings since)", w.inARow)
	}
	return out
}

func pct(part, whole float64) float64 {
	if whole <= 0 {
		return 0
	}
	return 100 * part / whole
}
