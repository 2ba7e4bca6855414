package judge

import (
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/pkg/prober/event"
)

// A pool is shapes whose convergence is judged together: the multi-stage
// engine's. Its probes cost 3–10× a single-stage one's on a cold broker (planning,
// dispatch, the mailboxes), so forty successes per shape — the per-shape rule —
// are out of reach in a 15 s budget once a plan has a dozen multi-stage shapes
// (measured on the 2-vCPU study broker: 70–170 multi-stage successes per run).
// What they warm is mostly one engine's path, so the pool asks the rule of the
// engine as a whole, table leg by table leg: a window closes when every live
// query of the pool (each leg's probe of each shape) answered at least once and
// the window holds at least Window probes; each leg's statistic is the median
// over its queries of each query's median in it, judged against that leg's own
// reference, so a table still getting faster restarts the count however flat
// the others are, and each shape weighs alike within a leg however the
// rotation fell. What this does not see: a minority of one leg's multi-stage
// shapes still getting faster while its other shapes are flat (the price of
// judging the engine within the budget; docs/design.md).
// Probes of a dropped query count for nothing.
//
// Pool judges the given shapes' convergence together (see above). Shapes it
// does not track yet are added, required. Call it before the tracker is shared.
func (t *Tracker) Pool(shapes []string) {
	if len(shapes) == 0 {
		return
	}
	p := &group{pooled: true, legRef: map[string]time.Duration{}}
	for _, s := range shapes {
		st := t.track(s)
		if st.group.pooled {
			continue
		}
		st.group, st.state.Pooled = p, true
		p.shapes = append(p.shapes, st)
		p.members = append(p.members, st.members...)
	}
}

// observePooled adds a successful probe of a pooled query and closes the
// pool's window when it is full. Under t.mu.
func (t *Tracker) observePooled(p *group, m *member, latency time.Duration) []event.ShapeState {
	if len(m.samples) >= t.rule.Window { // a query that never answers must not make the others' grow
		m.samples = append(m.samples[:0], m.samples[1:]...)
		p.n--
	}
	m.samples = append(m.samples, latency)
	p.n++
	if p.n < t.rule.Window {
		return nil
	}
	for _, st := range p.shapes {
		if len(st.members) == 0 && st.required() {
			return nil // a shape of the pool has not answered at all yet
		}
	}
	live := p.live()
	byLeg := map[string][]time.Duration{}
	for _, x := range live {
		if len(x.samples) == 0 {
			return nil // a query of the pool has not answered in this window yet
		}
		byLeg[x.leg] = append(byLeg[x.leg], Median(x.samples))
	}
	if len(byLeg) == 0 {
		return nil
	}
	// Each table leg is judged against itself: the median over its queries'
	// medians against its own reference. A leg still getting faster restarts
	// the count, however flat the others are.
	restart := false
	for leg, medians := range byLeg {
		var inARow int
		if p.legRef[leg], inARow = t.rule.next(p.legRef[leg], 1, Median(medians)); inARow == 0 {
			restart = true
		}
	}
	if restart {
		p.inARow = 0
	} else {
		p.inARow++
	}
	var closed []event.ShapeState
	for _, st := range p.shapes {
		own := st.state.Latest // a shape with no live query keeps its last median
		var ms []time.Duration
		for _, x := range st.members {
			if x.live {
				ms = append(ms, Median(x.samples))
			}
		}
		if len(ms) > 0 {
			own = Median(ms)
		}
		st.closed(own, p.inARow, t.rule.Windows)
		if st.required() {
			closed = append(closed, st.state)
		}
	}
	p.clear()
	return closed
}
