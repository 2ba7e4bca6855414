package event

import (
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/pkg/pinot"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/prober/plan"
)

// Kind says what an Event reports, and so which of its fields are set.
type Kind string

// Event kinds, each with the fields it sets.
const (
	// KindPlanned: Plan. Once the probe targets are known, and again when a
	// fallback or the engine's absence changes them.
	KindPlanned Kind = "planned"
	// KindPlanRetry: Err. No plan could be made yet and the run backs off.
	KindPlanRetry Kind = "plan_retry"
	// KindProbed: SQL, Step, Result, Latency, TimedOut, MultiStage. After every probe.
	KindProbed Kind = "probed"
	// KindDropped: SQL, Reason. Once, when a query (custom, or a generated
	// shape's) is dropped for the rest of the run: the broker cannot compile
	// it, or it never succeeds (judge/giveup.go). Reason says which, in the broker's words.
	KindDropped Kind = "dropped"
	// KindShapeWindow: Shape. A shape's convergence each time one of its
	// windows of probes closes.
	KindShapeWindow Kind = "shape_window"
	// KindJITRead: CompileTime, and JIT once the judge has read it. Each
	// reading of the JIT signal.
	KindJITRead Kind = "jit_read"
	// KindJITReadFailed: Err, and InARow once the judge has counted it. A
	// failed reading the run tolerates, with how many in a row have failed.
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
	// TimedOut: the probe ran out its own timeout (not the run's).
	TimedOut bool
	// MultiStage: a probe of the multi-stage engine (a leading SET), as the plan
	// found it once; for KindEngineWarm, the engine that is warm.
	MultiStage bool

	// Reason is why a query was dropped.
	Reason string
	// Plan is the run's plan.
	Plan plan.Plan
	// Err is a planning attempt's or a JIT reading's error.
	Err error
	// Shape is a shape's convergence after one of its windows.
	Shape ShapeState
	// CompileTime is a reading of the JVM's cumulative JIT compile time.
	CompileTime time.Duration
	// JIT is the JIT signal after a reading.
	JIT JITState
	// InARow counts the failed JIT readings in a row.
	InARow int
	// Engine is what the run found of the multi-stage engine.
	Engine plan.Engine
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
