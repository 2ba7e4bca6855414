package supervisor

import (
	"github.com/warmup-sidecar/warmup-sidecar/pkg/pinot"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/prober"
	"maps"
	"slices"
)

// Recorder turns prober events into metrics and /status figures.
type Recorder struct {
	// M receives the probe and coverage metrics.
	M *Metrics
	// Board receives the /status figures.
	Board *StatusBoard
}

var _ prober.Observer = Recorder{}

// Planned records the targets and, for the default probe, the coverage.
func (r Recorder) Planned(p prober.Plan) {
	if p.Coverage != nil {
		r.M.SetUncovered(len(p.Coverage.Uncovered))
	}
	r.planShapes(p.ShapeNames(), p.MultiStageShapes())
	r.Board.Update(func(s *Status) {
		s.Tables = prober.TableNames(p.Tables)
		s.Queries = slices.Clone(p.Queries)
		s.DroppedTables = slices.Clone(p.Dropped)
		engine := p.Engine
		s.MultiStage = &engine
		s.ShapeFallbacks = maps.Clone(p.Fallbacks)
		s.shapeOf = make(map[string]string, len(p.Queries))
		for i, q := range p.Queries {
			s.shapeOf[q] = p.ShapeOf(i)
		}
		if p.Coverage != nil {
			s.UncoveredServers = slices.Clone(p.Coverage.Uncovered)
		}
	})
}

// EngineFound records what the run found of the multi-stage engine: the plan
// may be reported before the engine answers.
func (r Recorder) EngineFound(e prober.Engine) {
	r.Board.Update(func(s *Status) { s.MultiStage = &e })
}

// PlanRetry records why no plan exists yet.
func (r Recorder) PlanRetry(err error) {
	r.Board.Update(func(s *Status) { s.LastError = err.Error() })
}

// Probed counts a probe.
func (r Recorder) Probed(e prober.ProbeEvent) {
	if e.Step == prober.StepNoScatter {
		r.Board.Update(func(s *Status) { s.NoScatterProbes++ })
		return
	}
	ok := e.Result.Class == pinot.Success
	engine := engineLabel(e.MultiStage)
	if ok {
		r.M.Probes.WithLabelValues(ResultSuccess, engine).Inc()
	} else {
		r.M.Probes.WithLabelValues(ResultFailure, engine).Inc()
	}
	r.M.ProbeDuration.WithLabelValues(engine).Observe(e.Latency.Seconds())
	r.Board.ProbeLatency(e.Latency)
	r.Board.Update(func(s *Status) {
		if ok {
			s.ProbesSucceeded++
		} else {
			s.ProbesFailed++
			s.LastError = e.Result.Message
		}
		s.LastProbeMs = float64(e.Latency.Microseconds()) / 1000
		s.engineProbed(e.MultiStage, ok)
	})
}

// QueryDropped records a query the run stopped sending, with why.
func (r Recorder) QueryDropped(sql, reason string) {
	r.Board.Update(func(s *Status) {
		s.DroppedQueries = append(s.DroppedQueries, Dropped{SQL: sql, Shape: s.shapeOf[sql], Reason: reason})
	})
}
