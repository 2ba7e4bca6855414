package schedule

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/warmup-sidecar/warmup-sidecar/pkg/pinot"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/prober/event"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/prober/plan"
)

// NoScatter starts the no-scatter step beside the caller (the run makes its
// plan meanwhile); wait waits for the step, and raises on the caller's
// goroutine a panic of its probes. Under a cap, wait ends the step first: at
// the capped rate its 100 queries would hold the floor probes for seconds.
func (r *Schedule) NoScatter(ctx context.Context) (wait func()) {
	ctx, cut := context.WithCancelCause(ctx)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer r.catch()
		r.noScatter(ctx)
	}()
	return func() {
		if r.Settings.MaxRate > 0 {
			cut(errYielded)
		}
		wg.Wait()
		cut(nil)
		r.rethrow()
	}
}

// noScatter warms compile and response building on the broker alone. A broker that
// does not answer it (or answers with an error) ends the step at once: it is an
// extra, never a reason to fail.
func (r *Schedule) noScatter(ctx context.Context) {
	left := r.Settings.NoScatterProbes
	for left > 0 && ctx.Err() == nil {
		n := min(left, r.Settings.Concurrency)
		var ok atomic.Int64
		g := errgroup.Group{}
		for range n {
			g.Go(func() error {
				defer r.catch()
				if r.probe(ctx, event.StepNoScatter, plan.NoScatterSQL).Class == pinot.Success {
					ok.Add(1)
				}
				return nil
			})
		}
		_ = g.Wait()
		r.rethrow()
		if ok.Load() < int64(n) {
			return
		}
		left -= n
	}
}

// round fires batch concurrently and waits for all of it; it reports whether any
// probe succeeded. seen, if set, hears each answer (under a lock).
func (r *Schedule) round(ctx context.Context, batch []string, seen func(string, pinot.Result)) roundResult {
	var mu sync.Mutex
	var anyOK atomic.Bool
	g := errgroup.Group{}
	for _, sql := range batch {
		g.Go(func() error {
			defer r.catch()
			res := r.probe(ctx, event.StepProbe, sql)
			if res.Class == pinot.Success {
				anyOK.Store(true)
			}
			if seen != nil {
				mu.Lock()
				seen(sql, res)
				mu.Unlock()
			}
			return nil
		})
	}
	_ = g.Wait()
	r.rethrow()
	return roundResult{anyOK: anyOK.Load()}
}

// catch keeps a panic in a probe goroutine from killing the process (errgroup does
// not recover); rethrow raises it again on the run's goroutine once the round is
// over, where Run's recover turns it into outcome failed.
func (r *Schedule) catch() {
	if v := recover(); v != nil {
		r.panicked.CompareAndSwap(nil, &v)
	}
}

func (r *Schedule) rethrow() {
	if v := r.panicked.Load(); v != nil {
		panic(*v)
	}
}

// probe runs one query, admitted under the pacer, with a timeout that never
// outlives the budget.
func (r *Schedule) probe(ctx context.Context, step, sql string) pinot.Result {
	if !r.admit(ctx, sql) {
		return pinot.Result{Class: pinot.Transient, Message: "budget ran out"}
	}
	res, _ := r.send(ctx, step, sql)
	return res
}

// send runs one query already admitted under the pacer.
func (r *Schedule) send(ctx context.Context, step, sql string) (pinot.Result, time.Duration) {
	timeout := min(r.Settings.ProbeTimeout, r.Deadline.Sub(r.Now()))
	if timeout <= 0 || ctx.Err() != nil {
		return pinot.Result{Class: pinot.Transient, Message: "budget ran out"}, 0
	}
	pctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	id := pinot.ProbeIDPrefix + r.Settings.RunID + "-" + strconv.FormatUint(r.seq.Add(1), 10)
	t0 := r.Now()
	if step == event.StepProbe {
		r.Judge.Sent(sql, t0)
	}
	res := r.Broker.Query(pctx, pinot.Query{SQL: sql, Timeout: timeout, ClientQueryID: id})
	lat := r.Now().Sub(t0)
	if res.Class != pinot.Success && cutByRun(ctx) {
		return res, lat // cut for the run's own reasons: says nothing of the broker
	}
	probed := event.Event{Kind: event.KindProbed, SQL: sql, Step: step, Result: res, Latency: lat,
		TimedOut: ctx.Err() == nil && errors.Is(pctx.Err(), context.DeadlineExceeded), MultiStage: r.mse[sql]}
	if step == event.StepProbe {
		if t, quota, rate, changed := r.paced().observe(sql, res); changed {
			r.Observer.Observe(event.Event{Kind: event.KindPaced, Table: t, Quota: quota, Rate: rate})
		}
	}
	r.judgeThenTell(probed)
	return res, lat
}
