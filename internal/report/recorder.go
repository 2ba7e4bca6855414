package report

import (
	"github.com/warmup-sidecar/warmup-sidecar/pkg/pinot"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/prober"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/prober/event"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/prober/plan"
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

var _ event.Observer = Recorder{}

// Observe records one event of the run.
func (r Recorder) Observe(e event.Event) {
	switch e.Kind {
	case event.KindPlanned:
		r.planned(e.Plan)
	case event.KindPlanRetry:
		r.planRetry(e.Err)
	case event.KindProbed:
		r.probed(e)
	case event.KindDropped:
		r.queryDropped(e.SQL, e.Reason)
	case event.KindShapeWindow:
		r.shapeWindow(e.Shape)
	case event.KindJITRead:
		r.jitRead(e.JIT)
	case event.KindJITReadFailed:
		r.jitReadFailed(e.Err, e.InARow)
	case event.KindJITUnavailable:
		r.jitUnavailable(e.Err)
	case event.KindEngineFound:
		r.engineFound(e.Engine)
	case event.KindEngineFloors:
		r.engineFloors(e.Floors)
	case event.KindEngineWarm:
		r.engineWarm(e.MultiStage, e.Lent)
	}
}

// planned records the targets and, for the default probe, the coverage.
func (r Recorder) planned(p prober.Plan) {
	if p.Coverage != nil {
		r.M.SetUncovered(len(p.Coverage.Uncovered))
	}
	r.planShapes(p.ShapeNames(), p.MultiStageShapes())
	r.Board.Update(func(s *Status) {
		s.Tables = plan.TableNames(p.Tables)
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

// engineFound records what the run found of the multi-stage engine: the plan
// may be reported before the engine answers.
func (r Recorder) engineFound(e prober.Engine) {
	r.Board.Update(func(s *Status) { s.MultiStage = &e })
}

// planRetry records why no plan exists yet.
func (r Recorder) planRetry(err error) {
	r.Board.Update(func(s *Status) { s.LastError = err.Error() })
}

// probed counts a probe.
func (r Recorder) probed(e event.Event) {
	if e.Step == event.StepNoScatter {
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

// queryDropped records a query the run stopped sending, with why.
func (r Recorder) queryDropped(sql, reason string) {
	r.Board.Update(func(s *Status) {
		s.DroppedQueries = append(s.DroppedQueries, Dropped{SQL: sql, Shape: s.shapeOf[sql], Reason: reason})
	})
}
