package rollout

import (
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/e2e/coldstart"
)

// Phase of a rollout a client query met.
const (
	PhaseSteady   = "steady"   // before the rollout (the helm upgrade)
	PhaseShutdown = "shutdown" // a pod deleted, until its containers exited (+ the client timeout)
	PhaseStart    = "start"    // a pod created, until the next deletion or the end of the load
)

// PhaseCount is one pod's failed and cancelled queries in one phase.
type PhaseCount struct {
	Pod       int    `json:"pod"`
	Broker    string `json:"broker"`
	Phase     string `json:"phase"`
	Failed    int    `json:"failed"`
	Cancelled int    `json:"cancelled"`
}

// PodTimes are one pod's transitions in a rollout, in seconds.
type PodTimes struct {
	Pod    int    `json:"pod"`
	Broker string `json:"broker"`
	// TerminateSeconds: deletion → every container exited; Killed: some only by SIGKILL.
	TerminateSeconds float64 `json:"terminate_s"`
	Killed           bool    `json:"killed,omitempty"`
	// Start→Healthy (broker /health 200), →Warm (sidecar /readyz 200, ON pods), →Ready (the
	// kubelet's verdict), →InService (the balancer sends it requests).
	HealthySeconds   float64 `json:"start_to_healthy_s"`
	WarmSeconds      float64 `json:"start_to_warm_s,omitempty"`
	ReadySeconds     float64 `json:"start_to_ready_s"`
	InServiceSeconds float64 `json:"start_to_in_service_s"`
	// Warmup is the sidecar's verdict (ON pods): its /status outcome when /readyz first said 200.
	Warmup string `json:"warmup,omitempty"`
	// BoostSeconds: start → the node agent ran the broker at its given-back CPU (boost arms; 0:
	// not within the record), BoostEnd the CPU limits before and after.
	BoostSeconds float64 `json:"boost_s,omitempty"`
	BoostEnd     string  `json:"boost_end,omitempty"`
	// JIT is the broker JVM's JIT compile time by window (with the JMX agent).
	JIT *PodJIT `json:"jit,omitempty"`
}

// Second is one second of the load, by scheduled arrival.
type Second struct {
	At        float64 `json:"t_s"` // from the load's start
	Queries   int     `json:"queries"`
	OK        int     `json:"ok"`
	Failed    int     `json:"failed"`
	Cancelled int     `json:"cancelled"`
	P50Ms     float64 `json:"p50_ms"`
	P99Ms     float64 `json:"p99_ms"`
}

// Bounds place a rollout on the load's clock.
type Bounds struct {
	Steady coldstart.Window // warm fleet, before the rollout
	// Rollout is [the helm upgrade, the load's end): the last pod's cold start comes after its Ready.
	Rollout coldstart.Window
	// Done is when the last pod became available (the rollout's own end).
	Done time.Duration
}

// segment is a span of the load's clock attributed to one pod's phase.
type segment struct {
	from, to time.Duration
	pod      int
	broker   string
	phase    string
}

// segments cut the rollout window by pod and phase from the events: each deletion opens a
// shutdown span lasting until its pod exited plus the client timeout (a query sent just before
// the exit can still fail at it); each creation opens a start span lasting until the next
// deletion or the end.
func segments(events []Event, t0 time.Time, b Bounds, timeout time.Duration) []segment {
	var out []segment
	var open *segment
	for _, e := range events {
		at := e.At.Sub(t0)
		if at < b.Rollout.Start || at >= b.Rollout.End {
			continue
		}
		switch e.Kind {
		case KindDeleted:
			if open != nil {
				open.to = at
				open = nil
			}
			out = append(out, segment{from: at, to: b.Rollout.End, pod: e.Pod, broker: e.Broker, phase: PhaseShutdown})
		case KindExited, KindKilled:
			for j := len(out) - 1; j >= 0; j-- {
				if out[j].pod == e.Pod && out[j].phase == PhaseShutdown {
					out[j].to = min(at+timeout, b.Rollout.End)
					break
				}
			}
		case KindCreated:
			out = append(out, segment{from: at, to: b.Rollout.End, pod: e.Pod, broker: e.Broker, phase: PhaseStart})
			open = &out[len(out)-1]
		}
	}
	return out
}

// attribute is the segment a query sent at s belongs to: a shutdown span first (it is the
// more specific), else the latest start span.
func attribute(segs []segment, s time.Duration) (segment, bool) {
	var found segment
	ok := false
	for _, g := range segs {
		if s < g.from || s >= g.to {
			continue
		}
		if g.phase == PhaseShutdown {
			return g, true
		}
		found, ok = g, true
	}
	return found, ok
}

// phaseCounts counts the failed and cancelled queries of the rollout window by pod and phase.
func phaseCounts(tr *coldstart.Trace, segs []segment, b Bounds) []PhaseCount {
	idx := map[[2]any]int{}
	var out []PhaseCount
	for _, r := range tr.Records {
		if r.Outcome == coldstart.OutcomeOK || !b.Rollout.Has(r.Scheduled) {
			continue
		}
		g, ok := attribute(segs, r.Sent)
		if !ok {
			g = segment{pod: -1, phase: "other"}
		}
		k := [2]any{g.pod, g.phase}
		j, seen := idx[k]
		if !seen {
			j = len(out)
			idx[k] = j
			out = append(out, PhaseCount{Pod: g.pod, Broker: g.broker, Phase: g.phase})
		}
		if r.Outcome == coldstart.OutcomeCancelled {
			out[j].Cancelled++
		} else {
			out[j].Failed++
		}
	}
	return out
}

// perSecond is the load second by second, whole seconds before end.
func perSecond(tr *coldstart.Trace, end time.Duration) []Second {
	var out []Second
	for t := time.Duration(0); t+time.Second <= end; t += time.Second {
		s := coldstart.Stats(tr, coldstart.Window{Start: t, End: t + time.Second})
		out = append(out, Second{At: t.Seconds(), Queries: s.Queries, OK: s.OK, Failed: s.Errors, Cancelled: s.Cancelled, P50Ms: s.P50Ms, P99Ms: s.P99Ms})
	}
	return out
}

// worstP99 is the highest p99 of any 10-second window starting on a whole second of w, and
// where it starts.
func worstP99(tr *coldstart.Trace, w coldstart.Window) (p99 float64, at time.Duration) {
	p99, at, _ = worstP99Where(tr, w, nil)
	return p99, at
}

// worstP99Where is worstP99 over the windows skip leaves in (nil: all); ok is false when it
// leaves none.
func worstP99Where(tr *coldstart.Trace, w coldstart.Window, skip func(from, to time.Duration) bool) (p99 float64, at time.Duration, ok bool) {
	const span = 10 * time.Second
	for t := w.Start; t+span <= w.End; t += time.Second {
		if skip != nil && skip(t, t+span) {
			continue
		}
		if s := coldstart.Stats(tr, coldstart.Window{Start: t, End: t + span}); !ok || s.P99Ms > p99 {
			p99, at, ok = s.P99Ms, t, true
		}
	}
	return p99, at, ok
}

// podTimes are each re-created pod's transitions in the rollout window.
func podTimes(events []Event, t0 time.Time, b Bounds) []PodTimes {
	var out []PodTimes
	from := t0.Add(b.Rollout.Start)
	for _, e := range events {
		if e.Kind != KindCreated || e.At.Before(from) {
			continue
		}
		p := PodTimes{Pod: e.Pod, Broker: e.Broker}
		since := func(k Kind) float64 {
			if at := first(events, e.Pod, k, e.At); !at.IsZero() {
				return at.Sub(e.At).Seconds()
			}
			return 0
		}
		p.HealthySeconds, p.WarmSeconds, p.ReadySeconds, p.InServiceSeconds = since(KindHealthy), since(KindWarm), since(KindReady), since(KindInService)
		life := lifeOf(events, e)
		if w, ok := life.first(KindWarm); ok {
			p.Warmup = w.Detail
		}
		if be, ok := life.first(KindBoostEnded); ok {
			p.BoostSeconds, p.BoostEnd = be.At.Sub(e.At).Seconds(), be.Detail
		}
		p.JIT = life.jit(p.InServiceSeconds)
		for _, d := range events {
			if d.Pod == e.Pod && d.Kind == KindDeleted && !d.At.Before(from) && d.At.Before(e.At) {
				exit := first(events, e.Pod, KindExited, d.At)
				if k := first(events, e.Pod, KindKilled, d.At); !k.IsZero() && (exit.IsZero() || k.Before(exit)) {
					exit, p.Killed = k, true
				}
				if !exit.IsZero() {
					p.TerminateSeconds = exit.Sub(d.At).Seconds()
				}
			}
		}
		out = append(out, p)
	}
	return out
}

// StateSpan is one pod in one state over [FromS, ToS) of the load's clock.
type StateSpan struct {
	Pod    int     `json:"pod"`
	Broker string  `json:"broker"`
	State  State   `json:"state"`
	FromS  float64 `json:"from_s"`
	ToS    float64 `json:"to_s"`
}

// stateSpans replays the events into each pod's states over [0, end) of the load's clock.
func stateSpans(events []Event, t0 time.Time, end time.Duration) []StateSpan {
	type cur struct {
		s      State
		from   time.Duration
		broker string
	}
	pods := map[int]*cur{}
	var out []StateSpan
	flush := func(pod int, c *cur, to time.Duration) {
		if to > c.from && c.s != StateAbsent {
			out = append(out, StateSpan{Pod: pod, Broker: c.broker, State: c.s, FromS: c.from.Seconds(), ToS: to.Seconds()})
		}
	}
	for _, e := range events {
		at := min(max(e.At.Sub(t0), 0), end)
		c := pods[e.Pod]
		if c == nil {
			c = &cur{s: StateAbsent, broker: e.Broker}
			pods[e.Pod] = c
		}
		n := next(c.s, e.Kind)
		if n == c.s {
			continue
		}
		flush(e.Pod, c, at)
		c.s, c.from = n, at
	}
	for pod, c := range pods {
		flush(pod, c, end)
	}
	return out
}
