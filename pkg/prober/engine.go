package prober

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/pkg/pinot"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/prober/judge"
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
	case s.MinIterations == 0 && s.Exit != judge.ExitConverged:
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
	return s.MultiStage != EngineOff && (s.MinIterations > 0 || s.Exit == judge.ExitConverged)
}

// mayProbeMultiStage: the run may send multi-stage probes of its own, so the
// plan is made with them until the engine is known.
func (r *run) mayProbeMultiStage() bool {
	floorless := r.s.MinIterations == 0 && r.s.Exit != judge.ExitConverged
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
func multiStageCount(queries []string) int {
	return len(slices.DeleteFunc(slices.Clone(queries), func(q string) bool { return !sqltext.MultiStage(q) }))
}
