package prober

import (
	"context"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/pkg/pinot"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/sqltext"
)

// EngineMode says whether a run warms Pinot's multi-stage engine too.
type EngineMode string

// Multi-stage modes. The zero value is EngineAuto.
const (
	// EngineAuto probes the multi-stage engine when a first probe finds it.
	EngineAuto EngineMode = "auto"
	// EngineOn always adds multi-stage probes (a broker without the engine then drops them).
	EngineOn EngineMode = "on"
	// EngineOff never sends multi-stage probes.
	EngineOff EngineMode = "off"
)

// MultiStageSQL is the multi-stage engine's no-scatter probe: it finds the engine
// (only its answers carry stageStats) and warms its planner and dispatcher.
var MultiStageSQL = sqltext.WithMultiStage(NoScatterSQL)

// Engine is what a run found of the multi-stage engine.
type Engine struct {
	// MultiStage is true when the run sends multi-stage probes.
	MultiStage bool `json:"multi_stage"`
	// Found says what the detection probe saw, in a line.
	Found string `json:"found"`
}

// DetectMultiStage asks the broker, with MultiStageSQL, whether it serves the
// multi-stage engine; why says what the answer showed. A broker without the
// engine says so at once (a single-stage answer, error 450 "not enabled", or
// another error). No answer in time
// counts as the engine being there: the first multi-stage query of a cold 1.5.1
// broker takes seconds to plan, which is the very path the probes must warm.
func DetectMultiStage(ctx context.Context, b Broker, timeout time.Duration) (ok bool, why string) {
	left := timeout
	if d, has := ctx.Deadline(); has {
		left = min(left, time.Until(d))
	}
	pctx, cancel := context.WithTimeout(ctx, max(left, time.Millisecond))
	res := b.Query(pctx, pinot.Query{SQL: MultiStageSQL, Timeout: max(left, time.Millisecond), ClientQueryID: pinot.ProbeIDPrefix + "engine"})
	cancel()
	switch {
	case res.Class == pinot.Success && res.MultiStage:
		return true, "the broker serves the multi-stage engine"
	case res.Class == pinot.Success:
		return false, "the broker answered from its single-stage engine: it has no multi-stage engine"
	case pinot.EngineNotEnabled(res):
		return false, "the broker's multi-stage engine is not enabled (" + res.Message + ")"
	case res.Class == pinot.Transient:
		return true, "the multi-stage engine did not answer in time (" + res.Message + "): probing it as a cold one"
	default:
		return false, "the broker did not run a multi-stage query: " + res.Message
	}
}

// FindEngine resolves s.MultiStage against the broker: off asks nothing; custom
// queries carry their own engine (unless on); otherwise DetectMultiStage asks.
func FindEngine(ctx context.Context, b Broker, s Settings) Engine {
	s = s.withDefaults()
	switch {
	case s.MultiStage == EngineOff:
		return Engine{Found: "multi-stage probes are off"}
	case s.MinIterations == 0 && s.Exit != ExitConverged:
		return Engine{Found: "nothing to warm: the floor is 0"}
	case len(s.Queries) > 0 && s.MultiStage == EngineAuto:
		return Engine{Found: "custom queries choose their engine"}
	}
	ok, why := DetectMultiStage(ctx, b, s.ProbeTimeout)
	return Engine{MultiStage: ok || s.MultiStage == EngineOn, Found: why}
}

// findEngine starts finding the run's engine with at most a fifth of the time
// left (a broker that never answers must leave the budget to the probes) and
// returns where the answer will come, once. It runs beside the planning: on a
// cold 1.5.1 broker the first multi-stage query takes ~3 s to answer, the plan
// ~1.5 s, and the single-stage probes need not wait for the other engine.
func (r *run) findEngine(ctx context.Context) <-chan Engine {
	out := make(chan Engine, 1)
	dctx, cancel := context.WithTimeout(ctx, max(0, r.deadline.Sub(r.now()))/5)
	go func() {
		defer cancel()
		e := Engine{Found: "finding the multi-stage engine failed"}
		defer func() { out <- e }()
		defer func() {
			if v := recover(); v != nil {
				e.Found = fmt.Sprintf("finding the multi-stage engine panicked: %v", v)
			}
		}()
		e = FindEngine(dctx, r.p.Broker, r.s)
	}()
	return out
}

// SendsMultiStage reports whether a run with these settings may send
// multi-stage queries: its own probes (unless off, or the floor is nothing), or
// the custom queries that choose that engine.
func SendsMultiStage(s Settings) bool {
	s = s.withDefaults()
	if len(s.Queries) > 0 {
		return len(multiStageQueries(s.Queries)) > 0
	}
	return s.MultiStage != EngineOff && (s.MinIterations > 0 || s.Exit == ExitConverged)
}

// mayProbeMultiStage: the run may send multi-stage probes of its own, so the
// plan is made with them until the engine is known.
func (r *run) mayProbeMultiStage() bool {
	floorless := r.s.MinIterations == 0 && r.s.Exit != ExitConverged
	return r.s.MultiStage != EngineOff && len(r.s.Queries) == 0 && !floorless
}

// engineUnknown is the plan's engine while the detection probe has no answer.
const engineUnknown = "not known yet: waiting for the first multi-stage answer"

// engineFound tells the observer, once per run, what the run found.
func (r *run) engineFound(e Engine) {
	r.p.Observer.Observe(Event{Kind: KindEngineFound, Engine: e})
}

// awaitEngine waits for the engine within ctx.
func awaitEngine(ctx context.Context, found <-chan Engine) Engine {
	select {
	case e := <-found:
		return e
	case <-ctx.Done():
		return Engine{Found: "the budget ran out before the multi-stage engine was found"}
	}
}

// withEngine is the plan once the engine is known: without the generated
// multi-stage probes when the broker has no such engine. Custom queries carry
// their engine themselves and are kept.
func (p Plan) withEngine(e Engine) Plan {
	p.Engine = e
	if p.Custom || e.MultiStage {
		return p
	}
	var kept Plan
	for i, q := range p.Queries {
		if !sqltext.MultiStage(q) {
			kept.Add(p.ShapeOf(i), q)
		}
	}
	p.Queries, p.Shapes = kept.Queries, kept.Shapes
	return p
}

// multiStageQueries is the set of queries that run on the multi-stage engine.
func multiStageQueries(queries []string) map[string]bool {
	mse := map[string]bool{}
	for _, q := range queries {
		if sqltext.MultiStage(q) {
			mse[q] = true
		}
	}
	return mse
}

// multiStageCount counts the queries (repeats included, as newLanes does) that
// run on the multi-stage engine.
func (r *run) multiStageCount(queries []string) int {
	n := 0
	for _, q := range queries {
		if r.mse[q] {
			n++
		}
	}
	return n
}

// setMSEShare sets the part of the floor the multi-stage engine must reach: its
// share of the live queries, so neither engine's probes can make the other warm.
func (r *run) setMSEShare(live []string) {
	share := 0.0
	n := r.multiStageCount(live)
	if len(live) > 0 {
		share = float64(n) / float64(len(live))
	}
	r.mseLive.Store(int64(n))
	r.mseShare.Store(math.Float64bits(share))
	r.floorsTold()
}

func (r *run) multiStageShare() float64 { return math.Float64frombits(r.mseShare.Load()) }

// floorMet: the run has its floor of successes, and each engine its share of it,
// so a plan with multi-stage probes is warm only when both engines were probed
// enough.
func (r *run) floorMet() bool {
	total := r.succeeded.Load()
	if total < int64(r.s.MinIterations) {
		return false
	}
	return r.multiStageShare() == 0 || r.shareMet(true) && r.shareMet(false)
}

// shareMet: the engine (multi-stage or single-stage) has its share of the
// floor's successes.
func (r *run) shareMet(multiStage bool) bool {
	mseNeed, sseNeed := r.engineFloors()
	mse := r.mseSucceeded.Load()
	if multiStage {
		return mse >= mseNeed
	}
	return r.succeeded.Load()-mse >= sseNeed
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
func (r *run) engineFloors() (mse, sse int64) {
	share := r.multiStageShare()
	mse = int64(math.Ceil(float64(r.s.MinIterations) * share))
	if share < 1 {
		mse = min(mse, multiStageRotations*r.mseLive.Load())
	}
	return mse, max(0, int64(r.s.MinIterations)-mse)
}

// engineShortfall names the engines short of their share of the floor, with
// how far each got; "" when none is (or the plan has one engine). A run whose
// total passed the floor can still be short on the slower engine.
func (r *run) engineShortfall() string {
	if r.multiStageShare() == 0 {
		return ""
	}
	mseNeed, sseNeed := r.engineFloors()
	mse := r.mseSucceeded.Load()
	sse := r.succeeded.Load() - mse
	var out []string
	if mse < mseNeed {
		out = append(out, fmt.Sprintf("%d of %d multi-stage successful probes", mse, mseNeed))
	}
	if sse < sseNeed {
		out = append(out, fmt.Sprintf("%d of %d single-stage successful probes", sse, sseNeed))
	}
	return strings.Join(out, "; ")
}
