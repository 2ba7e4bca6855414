package prober

import "time"

// A pool is shapes whose convergence is judged together: the multi-stage
// engine's. Its probes cost 3–10× a single-stage one's on a cold broker (planning,
// dispatch, the mailboxes), so forty successes per shape — the per-shape rule —
// are out of reach in a 15 s budget once a plan has a dozen multi-stage shapes
// (measured on the 2-vCPU study broker: 70–170 multi-stage successes per run).
// What they warm is mostly one engine's path, so the pool asks the rule of the
// engine as a whole: a window closes when every shape of the pool answered at
// least once and the window holds at least Window probes; its statistic is the
// median over the shapes of each shape's median in it, so a window always
// weighs the same shapes alike however the rotation fell.
type pool struct {
	members []*shapeTrack
	samples map[*shapeTrack][]time.Duration
	n       int
	ref     time.Duration
	inARow  int
}

// Pool judges the given shapes' convergence together (see pool). Shapes it
// does not track yet are added, required. Call it before the tracker is shared.
func (t *Tracker) Pool(shapes []string) {
	if len(shapes) == 0 {
		return
	}
	p := &pool{samples: map[*shapeTrack][]time.Duration{}}
	for _, s := range shapes {
		st := t.track(s)
		if st.pool == nil {
			st.pool, st.state.Pooled = p, true
			p.members = append(p.members, st)
		}
	}
}

// observePooled adds a successful probe of a pooled shape and closes the
// pool's window when it is full. Under t.mu.
func (t *Tracker) observePooled(st *shapeTrack, latency time.Duration) []ShapeState {
	p := st.pool
	ds := p.samples[st]
	if len(ds) >= t.rule.Window { // a shape that never answers must not make the others' grow
		ds = append(ds[:0], ds[1:]...)
	}
	p.samples[st] = append(ds, latency)
	p.n++
	if p.n < t.rule.Window {
		return nil
	}
	var medians []time.Duration
	for _, m := range p.members {
		if !m.required {
			continue
		}
		if len(p.samples[m]) == 0 {
			return nil // a shape of the pool has not answered in this window yet
		}
		medians = append(medians, median(p.samples[m]))
	}
	if len(medians) == 0 {
		return nil
	}
	p.ref, p.inARow = t.rule.next(p.ref, p.inARow, median(medians))
	var closed []ShapeState
	for _, m := range p.members {
		own := m.state.Latest // a shape with no probe in this window keeps its last median
		if ds := p.samples[m]; len(ds) > 0 {
			own = median(ds)
		}
		m.state.closed(own, p.inARow, t.rule.Windows)
		if m.required {
			closed = append(closed, m.state)
		}
	}
	clear(p.samples)
	p.n = 0
	return closed
}
