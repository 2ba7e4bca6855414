package supervisor

import (
	"context"
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/warmup-sidecar/warmup-sidecar/pkg/backoff"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/pinot"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/prober"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/prober/plan"
)

// early warms the broker's planners while the sidecar waits for /health 200: a
// Pinot broker serves its query endpoint seconds before it joins Helix and
// reports healthy (BaseBrokerStarter starts the admin API first; ~2.6 s on the
// study's cluster), and on a cold JVM the multi-stage engine's first SELECT 1
// takes 3–6 s (class loading and planning). Sent then, it costs the budget
// nothing. Only no-scatter queries (no table, no server), each engine's on its
// own, one at a time, from the wait's first /health answer, so the first reaches
// the query endpoint as soon as it listens, and the single-stage one is not held
// behind a multi-stage one still planning (on a slow broker that planning
// outlasts the whole wait); a refused one is tried again after 50 ms doubling to
// 250 ms. An answered one is followed by the next earlyEvery after it was sent:
// what the step is for is the first answer, the class loading and planning;
// repeats warm little more and take CPU from a broker still joining Helix. None
// while /health says SHUTTING_DOWN: that process is draining, and the next one
// is what a run will warm. The multi-stage one only when the run may send
// multi-stage queries (not with single-stage custom queries), and not again
// once the broker says its engine is not enabled. Their answers judge nothing:
// the run's own detection still decides.
type early struct {
	log      *slog.Logger
	cancel   context.CancelFunc
	g        errgroup.Group
	pass     pass
	sent     atomic.Int64
	answered atomic.Int64 // an HTTP answer of any kind: the endpoint listened
	mseOK    atomic.Bool
	queries  int64 // how many queries go side by side
}

// earlyEvery is the least time between two sends of one early query after an
// answer: 10 a second per engine, against the thousands a second a fast broker
// answers unpaced, and still a hundred times a kubelet's probes (10 s apart by
// default), so a query is never long in coming once a planning ends.
const earlyEvery = 100 * time.Millisecond

// startEarly starts sending the no-scatter queries until stop; none goes before
// heard lets them (the wait's first /health answer).
func (s *Supervisor) startEarly(ctx context.Context) *early {
	ctx, cancel := context.WithCancel(ctx)
	e := &early{log: s.Log, cancel: cancel, pass: newPass()}
	queries := []string{prober.NoScatterSQL}
	if plan.SendsMultiStage(s.Opts.Settings.Plan()) {
		queries = []string{prober.MultiStageSQL, prober.NoScatterSQL}
	}
	timeout := s.Opts.Settings.ProbeTimeout
	if timeout <= 0 {
		timeout = prober.DefaultProbeTimeout
	}
	e.queries = int64(len(queries))
	for _, sql := range queries {
		e.g.Go(func() error { return e.send(ctx, s.Broker, sql, timeout) })
	}
	return e
}

// heard takes a /health answer other than 200: the early queries go, unless
// the broker says it is shutting down. A nil early ignores it.
func (e *early) heard(h pinot.Health) {
	if e != nil {
		e.pass.set(!h.ShuttingDown())
	}
}

// send sends one no-scatter query again and again until ctx ends.
func (e *early) send(ctx context.Context, broker Broker, sql string, timeout time.Duration) (err error) {
	// A bug in the probe path ends the early queries, never the sidecar: the
	// run's own probes meet the same bug and report it.
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("early queries panicked: %v", v)
		}
	}()
	wait := backoff.Doubling{Min: 50 * time.Millisecond, Max: 250 * time.Millisecond}
	for e.pass.wait(ctx) {
		sentAt := time.Now()
		e.sent.Add(1)
		res := broker.Query(ctx, pinot.Query{SQL: sql, Timeout: timeout, ClientQueryID: pinot.ProbeIDPrefix + "early"})
		if ctx.Err() != nil {
			return nil
		}
		if res.HTTPStatus > 0 {
			e.answered.Add(1)
		}
		if pinot.EngineNotEnabled(res) {
			return nil // a broker without the engine: it will never run this query
		}
		if res.Class != pinot.Success {
			wait.Sleep(ctx) // refused, timed out or refused by the engine: not in a tight loop
			continue
		}
		if res.MultiStage {
			e.mseOK.Store(true)
		}
		wait.Reset()
		backoff.Sleep(ctx, time.Until(sentAt.Add(earlyEvery)))
	}
	return nil
}

// stop ends the early queries (one in flight is cut: the broker finishes its
// planning anyway) and says what they did when the broker listened to any. A
// nil early is stopped already.
func (e *early) stop() {
	if e == nil {
		return
	}
	e.cancel()
	if err := e.g.Wait(); err != nil {
		e.log.Error("queries before /health 200 (early warmup) stopped", "err", err)
		return
	}
	if e.answered.Load() == 0 && e.sent.Load() <= e.queries {
		return // a broker healthy at once, or one that never listened: nothing to say
	}
	e.log.Info("queries before /health 200 (early warmup)", "sent", e.sent.Load(), "answered", e.answered.Load(),
		"multi_stage_answered", e.mseOK.Load())
}
