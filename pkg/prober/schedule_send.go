package prober

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
)

// noScatter warms compile and response building on the broker alone. A broker that
// does not answer it (or answers with an error) ends the step at once: it is an
// extra, never a reason to fail.
func (r *run) noScatter(ctx context.Context) {
	left := r.s.NoScatterProbes
	for left > 0 && ctx.Err() == nil {
		n := min(left, r.s.Concurrency)
		var ok atomic.Int64
		g := errgroup.Group{}
		for range n {
			g.Go(func() error {
				defer r.catch()
				if r.probe(ctx, event.StepNoScatter, NoScatterSQL).Class == pinot.Success {
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
func (r *run) round(ctx context.Context, batch []string, seen func(string, pinot.Result)) roundResult {
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
func (r *run) catch() {
	if v := recover(); v != nil {
		r.panicked.CompareAndSwap(nil, &v)
	}
}

func (r *run) rethrow() {
	if v := r.panicked.Load(); v != nil {
		panic(*v)
	}
}

// probe runs one query with a timeout that never outlives the budget.
func (r *run) probe(ctx context.Context, step, sql string) pinot.Result {
	if step == event.StepProbe && !r.admit(ctx, sql) {
		return pinot.Result{Class: pinot.Transient, Message: "budget ran out"}
	}
	res, _ := r.send(ctx, step, sql)
	return res
}

// send runs one query already admitted under its tables' quota.
func (r *run) send(ctx context.Context, step, sql string) (pinot.Result, time.Duration) {
	timeout := min(r.s.ProbeTimeout, r.deadline.Sub(r.now()))
	if timeout <= 0 || ctx.Err() != nil {
		return pinot.Result{Class: pinot.Transient, Message: "budget ran out"}, 0
	}
	pctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	id := pinot.ProbeIDPrefix + r.s.RunID + "-" + strconv.FormatUint(r.seq.Add(1), 10)
	t0 := r.now()
	if step == event.StepProbe {
		r.j.Sent(sql, t0)
	}
	res := r.p.Broker.Query(pctx, pinot.Query{SQL: sql, Timeout: timeout, ClientQueryID: id})
	lat := r.now().Sub(t0)
	if res.Class != pinot.Success && errors.Is(context.Cause(ctx), errOutcomeKnown) {
		return res, lat // cut because the run has its outcome: says nothing of the broker
	}
	probed := event.Event{Kind: event.KindProbed, SQL: sql, Step: step, Result: res, Latency: lat,
		TimedOut: ctx.Err() == nil && errors.Is(pctx.Err(), context.DeadlineExceeded), MultiStage: r.mse[sql]}
	windows := r.j.Observe(probed, r.now()) // the shapes' windows it closed
	if r.pace != nil && step == event.StepProbe {
		if t, quota, rate, changed := r.pace.observe(sql, res); changed {
			r.p.Observer.Observe(event.Event{Kind: event.KindPaced, Table: t, Quota: quota, Rate: rate})
		}
	}
	for _, w := range windows {
		r.p.Observer.Observe(w)
	}
	r.p.Observer.Observe(probed)
	return res, lat
}
