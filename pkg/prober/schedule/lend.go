package schedule

import "github.com/warmup-sidecar/warmup-sidecar/pkg/prober/event"

// A lane whose engine is warm by the run's own evidence lends all but one of its
// workers to the engine still warming: on a small broker the CPU its probes take
// is what the cold engine lacks (on the study's 2 shared cores the single-stage
// shapes settle within the budget while the multi-stage ones get a handful of
// probes each).

// seat is a worker's place: its lane, and whether it is the lane's first
// worker, which stays when the lane's engine is warm (its probes keep the
// engine's latency watched and its paths counted toward the JIT's next tier).
type seat struct {
	lane   int
	anchor bool
}

// seats gives each worker of assign its seat.
func seats(assign []int) []seat {
	out := make([]seat, len(assign))
	taken := map[int]bool{}
	for i, l := range assign {
		out[i] = seat{lane: l, anchor: !taken[l]}
		taken[l] = true
	}
	return out
}

// engineWarm reports whether lane i's engine needs no more probes for the run
// to end warm: it has its share of the floor and, under the converged exit,
// flat latency on each of its shapes. Only with a lane per engine (with one,
// there is nobody to lend to). Under ls.mu.
func (r *Schedule) engineWarm(ls *laneSet, i int) bool {
	if len(ls.lanes) < 2 || !r.Judge.EngineWarm(i == multiStageLane, ls.lanes[i].shapes) {
		return false
	}
	l := ls.lanes[i]
	if !l.warmSaid {
		l.warmSaid = true
		r.Observer.Observe(event.Event{Kind: event.KindEngineWarm, MultiStage: i == multiStageLane, Lent: max(l.workers-1, 0)})
	}
	return true
}
