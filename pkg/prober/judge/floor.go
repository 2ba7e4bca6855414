package judge

import (
	"fmt"
	"math"
	"strings"
	"sync/atomic"
)

// floor counts a run's floor probes and splits the floor between the engines,
// so neither engine's probes can make the other warm.
type floor struct {
	need int64
	// mse: the plan's multi-stage queries, fixed once planned (nil before).
	mse       map[string]bool
	share     atomic.Uint64 // float64 bits: the multi-stage share of the live queries
	live      atomic.Int64  // the live multi-stage queries (repeats included)
	msOK      atomic.Int64  // multi-stage successes
	succeeded atomic.Int64
	failed    atomic.Int64
}

// count adds one floor probe.
func (f *floor) count(sql string, ok bool) {
	if !ok {
		f.failed.Add(1)
		return
	}
	f.succeeded.Add(1)
	if f.mse[sql] {
		f.msOK.Add(1)
	}
}

// multiStageCount counts the queries (repeats included, as the schedule's
// lanes do) that run on the multi-stage engine.
func (f *floor) multiStageCount(queries []string) int {
	n := 0
	for _, q := range queries {
		if f.mse[q] {
			n++
		}
	}
	return n
}

// setLive sets the part of the floor the multi-stage engine must reach: its
// share of the live queries.
func (f *floor) setLive(live []string) {
	share := 0.0
	n := f.multiStageCount(live)
	if len(live) > 0 {
		share = float64(n) / float64(len(live))
	}
	f.live.Store(int64(n))
	f.share.Store(math.Float64bits(share))
}

func (f *floor) multiStageShare() float64 { return math.Float64frombits(f.share.Load()) }

// met: the run has its floor of successes, and each engine its share of it,
// so a plan with multi-stage probes is warm only when both engines were probed
// enough.
func (f *floor) met() bool {
	if f.succeeded.Load() < f.need {
		return false
	}
	return f.multiStageShare() == 0 || f.shareMet(true) && f.shareMet(false)
}

// shareMet: the engine (multi-stage or single-stage) has its share of the
// floor's successes.
func (f *floor) shareMet(multiStage bool) bool {
	mseNeed, sseNeed := f.engineFloors()
	mse := f.msOK.Load()
	if multiStage {
		return mse >= mseNeed
	}
	return f.succeeded.Load()-mse >= sseNeed
}

// multiStageRotations caps the multi-stage engine's share of the floor at this
// many passes over its queries when the plan has single-stage queries too: a
// share by query count asked 172 multi-stage successes of a default 300 on the
// study's table, where its 2-vCPU broker answers 70–170 in a 15 s budget, so no
// default run could end warm before the budget. Four passes are what its
// pooled convergence needs anyway (a reference window and three flat ones, one
// pass each when the engine has ten shapes or more); the rest of the floor falls
// to the single-stage engine, so the floor's total is unchanged.
const multiStageRotations = 4

// engineFloors splits the floor by the engines' shares of the plan's queries,
// the multi-stage engine's capped at multiStageRotations passes.
func (f *floor) engineFloors() (mse, sse int64) {
	share := f.multiStageShare()
	mse = int64(math.Ceil(float64(f.need) * share))
	if share < 1 {
		mse = min(mse, multiStageRotations*f.live.Load())
	}
	return mse, max(0, f.need-mse)
}

// shortfall names the engines short of their share of the floor, with how far
// each got; "" when none is (or the plan has one engine). A run whose total
// passed the floor can still be short on the slower engine.
func (f *floor) shortfall() string {
	if f.multiStageShare() == 0 {
		return ""
	}
	mseNeed, sseNeed := f.engineFloors()
	mse := f.msOK.Load()
	sse := f.succeeded.Load() - mse
	var out []string
	if mse < mseNeed {
		out = append(out, fmt.Sprintf("%d of %d multi-stage successful probes", mse, mseNeed))
	}
	if sse < sseNeed {
		out = append(out, fmt.Sprintf("%d of %d single-stage successful probes", sse, sseNeed))
	}
	return strings.Join(out, "; ")
}
