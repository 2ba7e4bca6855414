package prober

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/pkg/backoff"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/prober/event"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/prober/judge"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/prober/plan"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/prober/schedule"
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
	// (pkg/prober/schedule/jit.go); with ExitConverged a quiet compiler is then part of warm.
	Compile CompileTimeSource
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// ErrAllQueriesDropped ends a run whose every custom query was dropped.
var ErrAllQueriesDropped = schedule.ErrAllQueriesDropped

// ErrAllProbesDropped ends a run whose every generated probe was rejected.
var ErrAllProbesDropped = schedule.ErrAllProbesDropped

// ErrNoBroker ends a run of a Prober without a Broker.
var ErrNoBroker = errors.New("no broker to probe: Prober.Broker is nil")

// Run performs one warmup that ends by deadline at the latest: in-flight probes
// are cancelled then, and a panic inside the run becomes outcome failed. It
// wires the run's rooms: the plan (pkg/prober/plan) says what to send, the
// schedule (pkg/prober/schedule) sends it, and the judge (pkg/prober/judge),
// fed every event, says when the broker is warm.
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
	j := judge.New(judge.Rules{Floor: s.MinIterations, Exit: s.Exit, Converge: s.Converge, JIT: s.JIT, Budget: deadline.Sub(start), MaxRate: s.MaxRate})
	r := &run{p: &pd, s: s, planner: plan.Planner{Catalog: pd.Catalog, Settings: s.Plan()}, deadline: deadline, now: now,
		sched: &schedule.Schedule{Broker: pd.Broker, Observer: pd.Observer, Judge: j, Quotas: pd.Quotas, Compile: pd.Compile,
			Settings: schedule.Settings{Concurrency: s.Concurrency, ProbeTimeout: s.ProbeTimeout, NoScatterProbes: s.NoScatterProbes, RunID: s.RunID, MaxRate: s.MaxRate},
			Deadline: deadline, Now: now}}
	defer func() {
		if v := recover(); v != nil {
			rep = Report{Outcome: OutcomeFailed, Err: fmt.Errorf("warmup panicked: %v", v)}
		}
		rep.Succeeded, rep.Failed = j.Counts()
		rep.Duration = now().Sub(start)
	}()
	stop := r.sched.WatchJIT(ctx)
	defer stop()
	return r.do(ctx)
}

// run is one Run's wiring: the plan made (retried), the engine found beside
// it, then the schedule.
type run struct {
	p        *Prober
	s        Settings
	planner  plan.Planner // its Engine is set while the engine is not known
	sched    *schedule.Schedule
	deadline time.Time
	now      func() time.Time
}

func (r *run) do(ctx context.Context) Report {
	// The engine is found, the no-scatter step runs and the plan is made side by
	// side: each waits on the broker or the controller, not on the others.
	found := r.findEngine(ctx)
	if r.mayProbeMultiStage() {
		r.planner.Engine = Engine{MultiStage: true, Found: engineUnknown}
	}
	noScatterDone := r.sched.NoScatter(ctx)
	pl, err := r.plan(ctx)
	noScatterDone()
	if err != nil {
		// No plan: still say what the engine answered, if it has (it had a
		// fifth of the budget while the planning retried).
		select {
		case e := <-found:
			r.sched.EngineFound(e)
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
	// it has workers of its own (a lane per engine); otherwise the plan waits for it.
	var pending <-chan Engine
	select {
	case e := <-found:
		pl = r.knowEngine(pl, e)
	default:
		if pl.Custom || schedule.MultiStageWorkers(pl.Queries, r.s.Concurrency) == 0 {
			pl = r.knowEngine(pl, awaitEngine(ctx, found))
		} else {
			pending = found
		}
	}
	return report(r.sched.Probe(ctx, pl, pending))
}

// report is the run's Report of how the schedule ended.
func report(e schedule.End) Report {
	rep := Report{Outcome: OutcomeBudgetExpired, Err: e.Err, Reason: e.Reason, Plan: e.Plan}
	switch {
	case e.Err != nil:
		rep.Outcome = OutcomeFailed
	case e.Warm:
		rep.Outcome = OutcomeWarm
	}
	return rep
}

// knowEngine reports the engine and fits the plan to it.
func (r *run) knowEngine(pl Plan, e Engine) Plan {
	r.sched.EngineFound(e)
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
