package schedule

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/pkg/prober/event"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/prober/judge"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/prober/plan"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/selector"
)

// Schedule sends one run's probes. Every field is set by its maker
// (pkg/prober's Run); one Schedule serves one run.
type Schedule struct {
	// Broker answers the probes.
	Broker plan.Broker
	// Observer hears every event after the Judge has.
	Observer event.Observer
	// Judge is the run's: it hears every event first, and its verdict ends the run.
	Judge *judge.Judge
	// Quotas, if set, is asked each probed table's query quota; nil: no pacing.
	Quotas QuotaSource
	// Compile, if set, is read for the JIT signal (jit.go).
	Compile CompileTimeSource
	// Settings are the run's, defaults filled in.
	Settings Settings
	// Deadline ends the run; Now is its clock.
	Deadline time.Time
	Now      func() time.Time

	paceOnce sync.Once
	pace     *pacer            // made by paced(), at the run's first query
	shapeOf  map[string]string // sql → shape
	// fallback: the chosen legs, probed with LIMIT 1 once a default plan's
	// every shape is dropped (lanes.go fallBack).
	fallback []string
	mse      map[string]bool // the plan's multi-stage queries (fixed once planned)

	panicked atomic.Pointer[any] // first panic of a probe goroutine
	seq      atomic.Uint64
}

// Settings are what the schedule needs of a run's settings.
type Settings struct {
	// Concurrency is the probes in flight: the workers; at least 1.
	Concurrency int
	// ProbeTimeout caps one probe, never beyond the time left.
	ProbeTimeout time.Duration
	// NoScatterProbes is how many no-scatter probes run first (≤ 0: none).
	NoScatterProbes int
	// RunID tags the run's clientQueryIds.
	RunID string
	// MaxRate caps the queries the run sends a second, every one drawing on
	// it (cap.go); ≤ 0: no cap.
	MaxRate float64
}

// End is how the schedule ended: warm, at the deadline, or failed (Err set).
type End struct {
	Warm bool
	Err  error
	// Reason says in one line why the run is warm, or what it lacked at the deadline.
	Reason string
	// Plan is what the run probed last (the LIMIT 1 fallback, if it came to that).
	Plan plan.Plan
}

// ErrAllQueriesDropped ends a run whose every custom query was dropped.
var ErrAllQueriesDropped = errors.New("every custom query was dropped: the broker cannot compile it, or it never succeeds")

// ErrAllProbesDropped ends a run whose every generated probe was rejected.
var ErrAllProbesDropped = errors.New("the broker rejected every probe as one it cannot compile")

// errOutcomeKnown cuts the probes still in flight when a run has its outcome.
var errOutcomeKnown = errors.New("the run has its outcome")

// Probe sends the plan's queries until the judge says warm, the deadline
// passes, or every query is dropped. With pending set, the multi-stage engine
// is not known yet: its lane opens when the engine is found (lanes.go). The
// plan is told first, to the judge and the observer.
func (r *Schedule) Probe(ctx context.Context, pl plan.Plan, pending <-chan plan.Engine) End {
	// r.mse is found once, on the plan as Probe gets it: a broker found
	// without the engine later only removes queries from it.
	r.mse = plan.MultiStageQueries(pl.Queries)
	r.replan(pl)
	r.shapeOf, _ = pl.ShapeIndex()
	if !pl.Custom {
		r.fallback = selector.Legs(pl.Tables)
		for _, leg := range r.fallback {
			if q := plan.DefaultProbe(leg); r.shapeOf[q] == "" {
				r.shapeOf[q] = plan.ShapeLimit1 // known before the workers share the map
			}
		}
	}
	r.tellFloors()
	r.pacing(ctx, pl)
	if pl.Custom {
		return r.custom(ctx, pl)
	}
	return r.defaults(ctx, pl, pending)
}

// check ends the run on the judge's verdict, or the deadline.
func (r *Schedule) check(ctx context.Context, pl plan.Plan) (End, bool) {
	if r.Judge.Warm() {
		return End{Warm: true, Plan: pl, Reason: r.Judge.Reason(true)}, true
	}
	if ctx.Err() != nil || !r.Now().Before(r.Deadline) {
		return End{Plan: pl, Reason: r.Judge.Reason(false)}, true
	}
	return End{}, false
}

// EngineFound tells the observer, once per run, what the run found of the
// multi-stage engine.
func (r *Schedule) EngineFound(e plan.Engine) {
	r.Observer.Observe(event.Event{Kind: event.KindEngineFound, Engine: e})
}
