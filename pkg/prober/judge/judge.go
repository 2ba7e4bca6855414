package judge

import (
	"slices"
	"sync"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/pkg/prober/event"
)

// Judge holds one run's evidence and gives its verdict. Make one with New per
// run and feed it the run's events (Observe), the plan first.
type Judge struct {
	rules Rules
	floor floor
	conv  *Tracker   // nil until the first plan
	jit   *jitSignal // nil unless WatchJIT
	tries *tries

	mu sync.Mutex // live and dropped, which a plan or a drop changes
	// live: the queries still probed, repeats included (the floor's split);
	// dropped: the queries dropped for the rest of the run.
	live    []string
	dropped map[string]bool
}

// New judges a run by rules.
func New(rules Rules) *Judge {
	rules.Converge = rules.Converge.withDefaults()
	rules.JIT = rules.JIT.withDefaults()
	j := &Judge{rules: rules, tries: newTries(rules.Budget), dropped: map[string]bool{}}
	j.floor.need = int64(rules.Floor)
	return j
}

// WatchJIT makes the JIT signal part of the verdict (under ExitConverged): the
// run has a compile-time source and will feed its readings. Before the run's
// readings start.
func (j *Judge) WatchJIT() { j.jit = newJITSignal(j.rules.JIT) }

// JITRule is the compile-rate rule, defaults filled in: its reader's cadence.
func (j *Judge) JITRule() JITRule { return j.rules.JIT }

// Sent notes a floor probe of sql going out at at: the give-up rule's clock
// starts at a query's first probe sent, which its KindProbed event, heard
// when the answer is in, cannot tell while an earlier probe is in flight.
func (j *Judge) Sent(sql string, at time.Time) { j.tries.sent(sql, at) }

// GivenUp says why sql is given up (giveup.go); "" while it is kept.
func (j *Judge) GivenUp(sql string) string { return j.tries.givenUp(sql) }

// Counted reports whether sql's last answer counted toward giving it up: a
// verdict on the query on its way, not the broker refusing.
func (j *Judge) Counted(sql string) bool { return j.tries.counted(sql) }

// Counts are the floor probes so far: succeeded and failed.
func (j *Judge) Counts() (succeeded, failed int64) {
	return j.floor.succeeded.Load(), j.floor.failed.Load()
}

// Floors are the engines' shares of the floor over the live queries.
func (j *Judge) Floors() event.Floors {
	mse, sse := j.floor.engineFloors()
	return event.Floors{MultiStage: mse, SingleStage: sse}
}

// Warm reports whether the run is warm: its floor (each engine its share),
// and the evidence the exit rule asks for beyond it.
func (j *Judge) Warm() bool { return j.floor.met() && j.evidence() }

// evidence: what the exit rule asks beyond the floor is in.
func (j *Judge) evidence() bool {
	if j.rules.Exit != ExitConverged {
		return true
	}
	return j.conv != nil && j.conv.Converged() && j.jit.quietOrIgnored()
}

// EngineWarm reports whether one engine needs no more probes for the run to
// end warm: it has its share of the floor and, under the converged exit, flat
// latency on each of its shapes.
func (j *Judge) EngineWarm(multiStage bool, shapes []string) bool {
	if !j.floor.shareMet(multiStage) {
		return false
	}
	return j.rules.Exit != ExitConverged || (j.conv != nil && j.conv.ConvergedAmong(shapes))
}

// Verdict is the judge's answer.
type Verdict struct {
	Warm bool
	// Reason says in one line why the run is warm, or what it still lacks (the
	// reason of a run that ends at its budget now).
	Reason string
}

// Verdict judges the evidence so far.
func (j *Judge) Verdict() Verdict {
	warm := j.Warm()
	return Verdict{Warm: warm, Reason: j.Reason(warm)}
}

// withoutDropped is queries less the dropped ones. Under j.mu.
func (j *Judge) withoutDropped(queries []string) []string {
	return slices.DeleteFunc(slices.Clone(queries), func(q string) bool { return j.dropped[q] })
}
