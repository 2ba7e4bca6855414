package schedule

import (
	"context"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/warmup-sidecar/warmup-sidecar/pkg/backoff"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/prober/event"
)

// CompileTimeSource reads the broker JVM's cumulative JIT compilation time (the
// JMX CompilationMXBean's TotalCompilationTime, as a metrics agent exports it).
type CompileTimeSource interface {
	CompileTime(ctx context.Context) (time.Duration, error)
}

// WatchJIT starts reading the compile time in the background, each reading
// fed to the judge (the JIT signal is then part of its verdict); stop ends the
// readings and waits for them. Without a Compile source it does nothing.
func (r *Schedule) WatchJIT(ctx context.Context) (stop func()) {
	if r.Compile == nil {
		return func() {}
	}
	r.Judge.WatchJIT()
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

// readJIT reads every JITRule.Every until ctx ends or the judge gives the
// signal up (too many failed readings in a row).
func (r *Schedule) readJIT(ctx context.Context) {
	rule := r.Judge.JITRule()
	for {
		rctx, cancel := context.WithTimeout(ctx, rule.Timeout)
		total, err := r.Compile.CompileTime(rctx)
		cancel()
		if ctx.Err() != nil {
			return // the run is over: not the source's fault
		}
		read := event.Event{Kind: event.KindJITRead, CompileTime: total}
		if err != nil {
			read = event.Event{Kind: event.KindJITReadFailed, Err: err}
		}
		// The judge answers with the signal's state, the failures' streak, or
		// the signal given up.
		for _, e := range r.Judge.Observe(read, r.Now()) {
			r.Observer.Observe(e)
			if e.Kind == event.KindJITUnavailable {
				return
			}
		}
		if !backoff.Sleep(ctx, rule.Every) {
			return
		}
	}
}
