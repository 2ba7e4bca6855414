package prober

import (
	"context"
	"fmt"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/warmup-sidecar/warmup-sidecar/pkg/backoff"
)

// JITObserver is an optional Observer extension: it hears each reading of the
// JIT signal, and the one error that turns the signal off for the run.
type JITObserver interface {
	JITRead(s JITState)
	JITUnavailable(err error)
}

// JITRead fans the event out to the observers that listen for it.
func (os Observers) JITRead(s JITState) {
	for _, o := range os {
		if jo, ok := o.(JITObserver); ok {
			jo.JITRead(s)
		}
	}
}

// JITUnavailable fans the event out to the observers that listen for it.
func (os Observers) JITUnavailable(err error) {
	for _, o := range os {
		if jo, ok := o.(JITObserver); ok {
			jo.JITUnavailable(err)
		}
	}
}

// jitWatch is the run's JIT signal: nil when no source is configured. A source
// that fails once is ignored for the rest of the run, so a wrong or unreachable
// URL never holds the gate.
type jitWatch struct {
	mu    sync.Mutex
	t     *jitTracker
	state JITState
	err   error
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
	jo, _ := r.p.Observer.(JITObserver)
	for {
		rctx, cancel := context.WithTimeout(ctx, rule.Timeout)
		total, err := r.p.Compile.CompileTime(rctx)
		cancel()
		if ctx.Err() != nil {
			return // the run is over: not the source's fault
		}
		if err != nil {
			r.jit.fail(err)
			if jo != nil {
				jo.JITUnavailable(err)
			}
			return
		}
		s := r.jit.add(r.now(), total)
		if jo != nil {
			jo.JITRead(s)
		}
		if !backoff.Sleep(ctx, rule.Every) {
			return
		}
	}
}

func (w *jitWatch) add(at time.Time, total time.Duration) JITState {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.state = w.t.add(at, total)
	return w.state
}

func (w *jitWatch) fail(err error) {
	w.mu.Lock()
	w.err = err
	w.mu.Unlock()
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
	switch {
	case w.err != nil:
		return "JIT signal ignored (JVM metrics unavailable)"
	case !s.Known:
		return "JIT compile rate not known yet"
	case s.Quiet:
		return fmt.Sprintf("JIT compile rate %.3f s/s, %.0f%% of its %.3f s/s peak", s.Rate, pct(s.Rate, s.Peak), s.Peak)
	default:
		return fmt.Sprintf("JIT still compiling (%.3f s/s, %.0f%% of its %.3f s/s peak)", s.Rate, pct(s.Rate, s.Peak), s.Peak)
	}
}

func pct(part, whole float64) float64 {
	if whole <= 0 {
		return 0
	}
	return 100 * part / whole
}
