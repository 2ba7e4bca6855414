package judge

import (
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/pkg/pinot"
)

// Judge holds one run's evidence and gives its verdict. Make one with New per
// run; tell it the plan (Track, Pool, Planned) before the first probe.
type Judge struct {
	rules Rules
	floor floor
	conv  *Tracker   // nil until Track
	jit   *jitSignal // nil unless WatchJIT
	tries *tries
}

// New judges a run by rules.
func New(rules Rules) *Judge {
	rules.Converge = rules.Converge.withDefaults()
	rules.JIT = rules.JIT.withDefaults()
	j := &Judge{rules: rules, tries: newTries(rules.Budget)}
	j.floor.need = int64(rules.Floor)
	return j
}

// WatchJIT makes the JIT signal part of the verdict (under ExitConverged): the
// run has a compile-time source and will feed its readings. Before the run's
// readings start.
func (j *Judge) WatchJIT() { j.jit = newJITSignal(j.rules.JIT) }

// JITRule is the compile-rate rule, defaults filled in: its reader's cadence.
func (j *Judge) JITRule() JITRule { return j.rules.JIT }

// Track starts judging the convergence of shapes, all required; their queries
// are added with Add. Before the judge is shared.
func (j *Judge) Track(shapes []string) { j.conv = NewTracker(j.rules.Converge, shapes) }

// Add judges query as one of shape's, its probe of the table leg leg ("" when
// it names none).
func (j *Judge) Add(shape, leg, query string) { j.conv.Add(shape, leg, query) }

// Pool judges the given shapes' convergence together, as one engine's
// (converge_pool.go). Before the judge is shared.
func (j *Judge) Pool(shapes []string) { j.conv.Pool(shapes) }

// Planned tells the judge the plan's multi-stage queries (fixed for the run)
// and the queries first live; it returns the engines' floors. Before the
// judge is shared.
func (j *Judge) Planned(multiStage map[string]bool, live []string) (mse, sse int64) {
	j.floor.mse = multiStage
	return j.Live(live)
}

// Live tells the judge the queries still probed after some were dropped: a
// shape is judged on its live queries (not at all when none is left), and the
// floor splits between the engines by their shares of them. It returns the
// engines' floors.
func (j *Judge) Live(live []string) (mse, sse int64) {
	if j.conv != nil {
		j.conv.keepOnly(live)
	}
	j.floor.setLive(live)
	return j.floor.engineFloors()
}

// Sent notes a floor probe of sql going out at at (the give-up rule's clock).
func (j *Judge) Sent(sql string, at time.Time) { j.tries.sent(sql, at) }

// Answered notes a floor probe's answer at now for the give-up rule; timedOut:
// the probe ran out its own timeout (not the run's).
func (j *Judge) Answered(sql string, res pinot.Result, timedOut bool, now time.Time) {
	j.tries.answered(sql, res, aboutTheQuery(res, timedOut), now)
}

// GivenUp says why sql is given up (giveup.go); "" while it is kept.
func (j *Judge) GivenUp(sql string) string { return j.tries.givenUp(sql) }

// Counted reports whether sql's last answer counted toward giving it up: a
// verdict on the query on its way, not the broker refusing.
func (j *Judge) Counted(sql string) bool { return j.tries.counted(sql) }

// Probed counts one floor probe and feeds its latency to its shape. It returns
// the states of the shapes whose window it closed.
func (j *Judge) Probed(sql string, latency time.Duration, ok bool) []ShapeState {
	j.floor.count(sql, ok)
	if j.conv == nil {
		return nil
	}
	return j.conv.Observe(sql, latency, ok)
}

// Counts are the floor probes so far: succeeded and failed.
func (j *Judge) Counts() (succeeded, failed int64) {
	return j.floor.succeeded.Load(), j.floor.failed.Load()
}

// JITRead adds a compile-time reading (the JVM's cumulative compile time)
// taken at at. Without WatchJIT the reading is ignored.
func (j *Judge) JITRead(at time.Time, total time.Duration) JITState {
	if j.jit == nil {
		return JITState{}
	}
	return j.jit.add(at, total)
}

// JITFailed counts a failed reading (err nil: none); inARow is the streak so
// far, and unavailable, once set, why the signal is given up for the run.
// Without WatchJIT the failure is ignored.
func (j *Judge) JITFailed(err error) (inARow int, unavailable error) {
	if j.jit == nil {
		return 0, nil
	}
	n, gaveUp := j.jit.failed(err)
	if gaveUp {
		return n, j.jit.givenUp()
	}
	return n, nil
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
	return j.rules.Exit != ExitConverged || j.conv.ConvergedAmong(shapes)
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
