package prober

import (
	"context"
	"fmt"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/warmup-sidecar/warmup-sidecar/pkg/backoff"
)

// jitWatch is the run's JIT signal: nil when no source is configured. A failed
// reading keeps the last readings (the exit judges them) and the next tick reads
// again; JITRule.Failures failures in a row give the source up for the rest of
// the run, so a wrong or unreachable URL holds the gate a few seconds at most.
type jitWatch struct {
	mu     sync.Mutex
	t      *jitTracker
	state  JITState
	inARow int   // failed readings in a row
	err    error // set once the source is given up
}

// watchJIT starts reading the compile time in the background; stop ends the
// readings and waits for them.
func (r *run) watchJIT(ctx context.Context) (stop func()) {
	if r.p.Compile == nil {
		return func() {}
	}
	r.jit = &jitWatch{t: newJITTracker(r.s.JIT)}
	ctx, cancel := context.WithCancel(ctx)
	var g errgroup.Group
	g.Go(func() error {
		defer r.catch() // surfaced by the next round's rethrow
		r.readJIT(ctx)
		return nil
	})
	return func() {
		cancel()
		_ = g.Wait()
	}
}

func (r *run) readJIT(ctx context.Context) {
	rule := r.jit.t.rule
	for {
		rctx, cancel := context.WithTimeout(ctx, rule.Timeout)
		total, err := r.p.Compile.CompileTime(rctx)
		cancel()
		if ctx.Err() != nil {
			return // the run is over: not the source's fault
		}
		switch n, gaveUp := r.jit.failed(err, rule.Failures); {
		case gaveUp:
			r.p.Observer.Observe(Event{Kind: KindJITUnavailable, Err: r.jit.givenUp()})
			return
		case err != nil:
			r.p.Observer.Observe(Event{Kind: KindJITReadFailed, Err: err, InARow: n})
		default:
			s := r.jit.add(r.now(), total)
			r.p.Observer.Observe(Event{Kind: KindJITRead, JIT: s})
		}
		if !backoff.Sleep(ctx, rule.Every) {
			return
		}
	}
}

func (w *jitWatch) add(at time.Time, total time.Duration) JITState {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.inARow = 0
	w.state = w.t.add(at, total)
	return w.state
}

// failed counts a failed reading (err nil: none) against the streak that gives
// the source up at limit; inARow is the streak so far.
func (w *jitWatch) failed(err error, limit int) (inARow int, gaveUp bool) {
	if err == nil {
		return 0, false
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.inARow++
	if w.inARow >= limit && w.err == nil {
		w.err = fmt.Errorf("%d readings in a row failed, the last: %w", w.inARow, err)
	}
	return w.inARow, w.err != nil
}

// givenUp is why the source was given up (nil while it is not).
func (w *jitWatch) givenUp() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

// quietOrIgnored is true when the JIT does not hold the exit: no source, a
// failed source, or a quiet compiler.
func (w *jitWatch) quietOrIgnored() bool {
	if w == nil {
		return true
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err != nil || w.state.Quiet
}

// describe says where the JIT signal stands, for a run's reason; "" without a source.
func (w *jitWatch) describe() string {
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
