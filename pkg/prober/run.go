package prober

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/pkg/backoff"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/prober/event"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/prober/judge"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/prober/plan"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/selector"
)

// Prober runs warmups. Every dependency is injected; Broker is required, and
// Catalog is unless Settings.Queries are given.
type Prober struct {
	// Broker runs the probes.
	Broker Broker
	// Catalog lists tables and routing for the plan (pkg/prober/plan); needed
	// for the default probe only.
	Catalog Catalog
	// Settings are the run's.
	Settings Settings
	// Observer hears the run's events; nil: nobody listens.
	Observer event.Observer
	// Quotas, if set, is asked each probed table's query quota once the plan is
	// known, and probes are paced under it; nil: no pacing.
	Quotas QuotaSource
	// Compile, if set, reads the broker JVM's JIT compile time during the run
	// (schedule_jit.go); with ExitConverged a quiet compiler is then part of warm.
	Compile CompileTimeSource
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// ErrAllQueriesDropped ends a run whose every custom query was dropped.
var ErrAllQueriesDropped = errors.New("every custom query was dropped: the broker cannot compile it, or it never succeeds")

// errOutcomeKnown cuts the probes still in flight when a run has its outcome.
var errOutcomeKnown = errors.New("the run has its outcome")

// ErrNoBroker ends a run of a Prober without a Broker.
var ErrNoBroker = errors.New("no broker to probe: Prober.Broker is nil")

// Run performs one warmup that ends by deadline at the latest: in-flight probes
// are cancelled then, and a panic inside the run becomes outcome failed.
func (p *Prober) Run(ctx context.Context, deadline time.Time) (rep Report) {
	if p.Broker == nil {
		return Report{Outcome: OutcomeFailed, Err: ErrNoBroker}
	}
	pd := *p // the zero fields filled, so the run never checks them again
	if pd.Now == nil {
		pd.Now = time.Now
	}
	if pd.Observer == nil {
		pd.Observer = event.Observers{}
	}
	pd.Settings = pd.Settings.withDefaults()
	now := pd.Now
	start := now()
	ctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	s := pd.Settings
	r := &run{p: &pd, s: s, planner: plan.Planner{Catalog: pd.Catalog, Settings: s.Plan()}, deadline: deadline, now: now, j: judge.New(judge.Rules{
		Floor: s.MinIterations, Exit: s.Exit, Converge: s.Converge, JIT: s.JIT, Budget: deadline.Sub(start)})}
	defer func() {
		if v := recover(); v != nil {
			rep = Report{Outcome: OutcomeFailed, Err: fmt.Errorf("warmup panicked: %v", v)}
		}
		rep.Succeeded, rep.Failed = r.j.Counts()
		rep.Duration = now().Sub(start)
	}()
	stop := r.watchJIT(ctx)
	defer stop()
	return r.do(ctx)
}

type run struct {
	p        *Prober
	s        Settings
	planner  plan.Planner // its Engine is set while the engine is not known
	deadline time.Time
	now      func() time.Time
	pace     *pacer // nil until the plan is known

	// j judges the run's evidence: the floor, convergence, the JIT signal,
	// the give-up rule. It is told the plan before any probe.
	j       *judge.Judge
	shapeOf map[string]string // sql → shape
	shapes  []string
	// fallback: the chosen legs, probed with LIMIT 1 once a default plan's
	// every shape is dropped (schedule_lanes.go fallBack).
	fallback []string

	mse map[string]bool // the plan's multi-stage queries (fixed once planned)

	panicked atomic.Pointer[any] // first panic of a probe goroutine
	seq      atomic.Uint64
}

func (r *run) do(ctx context.Context) Report {
	// The engine is found, the no-scatter step runs and the plan is made side by
	// side: each waits on the broker or the controller, not on the others.
	found := r.findEngine(ctx)
	if r.mayProbeMultiStage() {
		r.planner.Engine = Engine{MultiStage: true, Found: engineUnknown}
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer r.catch()
		r.noScatter(ctx)
	}()
	pl, err := r.plan(ctx)
	wg.Wait()
	r.rethrow()
	if err != nil {
		// No plan: still say what the engine answered, if it has (it had a
		// fifth of the budget while the planning retried).
		select {
		case e := <-found:
			r.engineFound(e)
		default:
		}
	}
	if errors.Is(err, plan.ErrNoCatalog) {
		return Report{Outcome: OutcomeFailed, Err: err}
	}
	if err != nil {
		return Report{Outcome: OutcomeBudgetExpired, Err: err, Plan: pl}
	}
	// The single-stage probes need not wait for a cold multi-stage engine when
	// it has workers of its own (schedule_lanes.go); otherwise the plan waits for it.
	// r.mse is found once, on the plan as made: a broker without the engine
	// only removes queries from it.
	r.mse = plan.MultiStageQueries(pl.Queries)
	var pending <-chan Engine
	select {
	case e := <-found:
		pl = r.knowEngine(pl, e)
	default:
		if pl.Custom || !splitsEngines(multiStageCount(pl.Queries), len(pl.Queries), r.s.Concurrency) {
			pl = r.knowEngine(pl, awaitEngine(ctx, found))
		} else {
			pending = found
		}
	}
	r.replan(pl)
	r.shapeOf, r.shapes = pl.ShapeIndex()
	if !pl.Custom {
		r.fallback = selector.Legs(pl.Tables)
		for _, leg := range r.fallback {
			if q := plan.DefaultProbe(leg); r.shapeOf[q] == "" {
				r.shapeOf[q] = ShapeLimit1 // known before the workers share the map
			}
		}
	}
	r.tellFloors()
	r.pace = r.pacing(ctx, pl)
	if pl.Custom {
		return r.custom(ctx, pl)
	}
	return r.defaults(ctx, pl, pending)
}

// knowEngine reports the engine and fits the plan to it.
func (r *run) knowEngine(pl Plan, e Engine) Plan {
	r.engineFound(e)
	return pl.WithEngine(e)
}

// plan retries with backoff until a plan exists or the deadline passes.
func (r *run) plan(ctx context.Context) (Plan, error) {
	b := backoff.Doubling{Min: 100 * time.Millisecond, Max: 2 * time.Second}
	// cause is the last failure that was not the budget itself: "the controller
	// answered 503" says more than "context deadline exceeded".
	var cause error
	for {
		pl, err := r.planner.Plan(ctx)
		if err == nil || errors.Is(err, plan.ErrNoCatalog) {
			return pl, err
		}
		if ctx.Err() == nil || cause == nil {
			cause = err
		}
		if ctx.Err() != nil {
			return pl, fmt.Errorf("budget ran out before a plan could be made: %w", cause)
		}
		r.p.Observer.Observe(event.Event{Kind: event.KindPlanRetry, Err: err})
		if !b.Sleep(ctx) {
			return pl, fmt.Errorf("budget ran out before a plan could be made: %w", cause)
		}
	}
}

// check ends the run on the judge's verdict, or the deadline.
func (r *run) check(ctx context.Context, pl Plan) (Report, bool) {
	if r.j.Warm() {
		return Report{Outcome: OutcomeWarm, Plan: pl, Reason: r.j.Reason(true)}, true
	}
	if ctx.Err() != nil || !r.now().Before(r.deadline) {
		return Report{Outcome: OutcomeBudgetExpired, Plan: pl, Reason: r.j.Reason(false)}, true
	}
	return Report{}, false
}
