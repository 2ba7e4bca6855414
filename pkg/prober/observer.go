package prober

import (
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/pkg/pinot"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/prober/judge"
)

// Observer hears what a run does, one Event at a time. Calls may come from
// several goroutines at once.
type Observer interface {
	Observe(e Event)
}

// ObserverFunc adapts a function to an Observer.
type ObserverFunc func(Event)

// Observe calls f.
func (f ObserverFunc) Observe(e Event) { f(e) }

// Observers fans each event out to several observers in order.
type Observers []Observer

// Observe tells every observer.
func (os Observers) Observe(e Event) {
	for _, o := range os {
		o.Observe(e)
	}
}

// Kind says what an Event reports, and so which of its fields are set.
type Kind string

// Event kinds, each with the fields it sets.
const (
	// KindPlanned: Plan. Once the probe targets are known, and again when a
	// fallback or the engine's absence changes them.
	KindPlanned Kind = "planned"
	// KindPlanRetry: Err. No plan could be made yet and the run backs off.
	KindPlanRetry Kind = "plan_retry"
	// KindProbed: SQL, Step, Result, Latency, MultiStage. After every probe.
	KindProbed Kind = "probed"
	// KindDropped: SQL, Reason. Once, when a query (custom, or a generated
	// shape's) is dropped for the rest of the run: the broker cannot compile
	// it, or it never succeeds (judge/giveup.go). Reason says which, in the broker's words.
	KindDropped Kind = "dropped"
	// KindShapeWindow: Shape. A shape's convergence each time one of its
	// windows of probes closes.
	KindShapeWindow Kind = "shape_window"
	// KindJITRead: JIT. Each reading of the JIT signal.
	KindJITRead Kind = "jit_read"
	// KindJITReadFailed: Err, InARow. A failed reading the run tolerates, with
	// how many in a row have failed.
	KindJITReadFailed Kind = "jit_read_failed"
	// KindJITUnavailable: Err. The signal is given up for the run (after
	// JITRule.Failures failed readings in a row).
	KindJITUnavailable Kind = "jit_unavailable"
	// KindEngineFound: Engine. Once per run: what it found of the multi-stage engine.
	KindEngineFound Kind = "engine_found"
	// KindEngineFloors: Floors. How the floor splits between the engines, when
	// the plan is made and again when a dropped query changes their shares.
	KindEngineFloors Kind = "engine_floors"
	// KindEngineWarm: MultiStage, Lent. Once per run and engine: the engine is
	// warm by the run's evidence and Lent of its workers now help the other.
	KindEngineWarm Kind = "engine_warm"
	// KindPaced: Table, Quota, Rate. The rate chosen for a table whose query
	// quota is known or was just learned.
	KindPaced Kind = "paced"
)

// Event is one thing a run did; Kind says which fields are set.
type Event struct {
	Kind Kind

	// SQL is the query sent (KindProbed) or dropped (KindDropped).
	SQL string
	// Step is StepNoScatter for the no-scatter step, StepProbe for floor probes.
	Step string
	// Result is the probe's classified answer.
	Result pinot.Result
	// Latency is the probe's round trip as the sidecar saw it.
	Latency time.Duration
	// MultiStage: a probe of the multi-stage engine (a leading SET), as the plan
	// found it once; for KindEngineWarm, the engine that is warm.
	MultiStage bool

	// Reason is why a query was dropped.
	Reason string
	// Plan is the run's plan.
	Plan Plan
	// Err is a planning attempt's or a JIT reading's error.
	Err error
	// Shape is a shape's convergence after one of its windows.
	Shape judge.ShapeState
	// JIT is the JIT signal after a reading.
	JIT judge.JITState
	// InARow counts the failed JIT readings in a row.
	InARow int
	// Engine is what the run found of the multi-stage engine.
	Engine Engine
	// Floors is each engine's share of the floor.
	Floors Floors
	// Lent is how many workers a warm engine lends to the other.
	Lent int
	// Table, Quota and Rate: a paced table, its quota (or the rate it admitted)
	// and the probes' rate, in queries per second.
	Table       string
	Quota, Rate float64
}

// Floors is each engine's share of the floor: the successful probes it must reach.
type Floors struct {
	MultiStage, SingleStage int64
}

// Step names.
const (
	StepNoScatter = "no_scatter"
	StepProbe     = "probe"
)
