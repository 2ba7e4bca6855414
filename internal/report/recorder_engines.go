package report

import (
	"maps"

	"github.com/warmup-sidecar/warmup-sidecar/pkg/prober/event"
)

// EngineStatus is one query engine's progress in /status: the run is warm only
// when each engine has its share of the floor, so this says which one it waits for.
type EngineStatus struct {
	ProbesSucceeded int64 `json:"probes_succeeded"`
	ProbesFailed    int64 `json:"probes_failed"`
	// FloorShare is the successful probes this engine must reach (its share of
	// the floor, by its share of the plan's queries).
	FloorShare int64 `json:"floor_share"`
	ShareMet   bool  `json:"share_met"`
	// WorkersLent is how many of this engine's workers probe the other engine
	// since this one became warm by the run's evidence (0 until then).
	WorkersLent int `json:"workers_lent"`
}

// engineFloors records each engine's share of the floor. An engine the plan no
// longer probes (a broker without the multi-stage engine) leaves /status unless
// it was already probed.
func (r Recorder) engineFloors(f event.Floors) {
	r.Board.Update(func(s *Status) {
		setFloorShare(s, EngineSingleStage, f.SingleStage)
		setFloorShare(s, EngineMultiStage, f.MultiStage)
	})
}

func setFloorShare(s *Status, engine string, share int64) {
	e, seen := s.Engines[engine]
	if share == 0 && (!seen || e.ProbesSucceeded+e.ProbesFailed == 0) {
		delete(s.Engines, engine)
		return
	}
	e.FloorShare = share
	s.engine(engine, e)
}

// engineWarm records how many workers the warm engine lends to the other.
func (r Recorder) engineWarm(multiStage bool, lent int) {
	r.Board.Update(func(s *Status) {
		name := engineLabel(multiStage)
		e := s.Engines[name]
		e.WorkersLent = lent
		s.engine(name, e)
	})
}

// engineProbed counts one floor probe against its engine. Under the board's lock.
func (s *Status) engineProbed(multiStage, ok bool) {
	name := engineLabel(multiStage)
	e := s.Engines[name]
	if ok {
		e.ProbesSucceeded++
	} else {
		e.ProbesFailed++
	}
	s.engine(name, e)
}

func (s *Status) engine(name string, e EngineStatus) {
	if s.Engines == nil {
		s.Engines = map[string]EngineStatus{}
	}
	s.Engines[name] = e
}

// enginesSnapshot copies the engines with ShareMet worked out.
func enginesSnapshot(in map[string]EngineStatus) map[string]EngineStatus {
	out := maps.Clone(in)
	for name, e := range out {
		e.ShareMet = e.ProbesSucceeded >= e.FloorShare
		out[name] = e
	}
	return out
}
