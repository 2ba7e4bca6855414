package plan

import (
	"context"
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
	s = s.WithDefaults()
	switch {
	case s.MultiStage == EngineOff:
		return Engine{Found: "multi-stage probes are off"}
	case s.NothingToWarm:
		return Engine{Found: "nothing to warm: the floor is 0"}
	case len(s.Queries) > 0 && s.MultiStage == EngineAuto:
		return Engine{Found: "custom queries choose their engine"}
	}
	ok, why := DetectMultiStage(ctx, b, s.ProbeTimeout)
	return Engine{MultiStage: ok || s.MultiStage == EngineOn, Found: why}
}

// SendsMultiStage reports whether a run with these settings may send
// multi-stage queries: its own probes (unless off, or the floor is nothing), or
// the custom queries that choose that engine.
func SendsMultiStage(s Settings) bool {
	s = s.WithDefaults()
	if len(s.Queries) > 0 {
		return len(MultiStageQueries(s.Queries)) > 0
	}
	return s.MultiStage != EngineOff && !s.NothingToWarm
}

// WithEngine is the plan once the engine is known: without the generated
// multi-stage probes when the broker has no such engine. Custom queries carry
// their engine themselves and are kept.
func (p Plan) WithEngine(e Engine) Plan {
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

// MultiStageQueries is the set of queries that run on the multi-stage engine.
func MultiStageQueries(queries []string) map[string]bool {
	mse := map[string]bool{}
	for _, q := range queries {
		if sqltext.MultiStage(q) {
			mse[q] = true
		}
	}
	return mse
}
