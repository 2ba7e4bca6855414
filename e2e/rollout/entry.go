package rollout

import (
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/e2e/coldstart"
)

// A pod starting its JVM or being warmed by its sidecar (both out of service) spends CPU the pods
// in service may miss: on the test bed each broker has its own CPU limit (when the study gives it
// one), but the servers its probes reach, the node's spare cores and (on the harness's former
// model) every core are shared.
// The worst 10 s p99 mixes that with what readiness is about: the cold serve of a pod that has
// just entered the Service. Two figures keep the causes apart: each pod's first seconds in
// service, and the worst 10 s of the rollout when no pod was starting or being warmed.

// EntrySpan is how long after a pod enters the Service its entry is measured: the cold serve
// is its first burst of traffic.
const EntrySpan = 10 * time.Second

// Entry is the load's first EntrySpan after one pod entered the Service.
type Entry struct {
	Pod     int     `json:"pod"`
	Queries int     `json:"queries"`
	P99Ms   float64 `json:"p99_ms"`
	Ratio   float64 `json:"ratio"` // over the steady p99
	// Busy: another pod was starting or being warmed meanwhile (it shares the servers and the node).
	Busy bool `json:"busy,omitempty"`
}

// busySpan is one pod's work out of service: its JVM's start (created → healthy) or, when its
// sidecar warms it, the probes (healthy → warm), one span each. A pod with no warm event waits
// idle for the kubelet after healthy.
type busySpan struct {
	pod      int
	from, to time.Duration
	warming  bool // the sidecar's probes (healthy → warm), not the JVM's start
}

func busySpans(events []Event, t0 time.Time, end time.Duration) []busySpan {
	var out []busySpan
	for _, e := range events {
		if e.Kind != KindCreated {
			continue
		}
		from, to := e.At.Sub(t0), end
		h := first(events, e.Pod, KindHealthy, e.At)
		healthy := !h.IsZero() && !nextCreation(events, e, h)
		if healthy {
			to = h.Sub(t0)
		}
		if to > from {
			out = append(out, busySpan{pod: e.Pod, from: from, to: to})
		}
		if !healthy { // started until the end: no probes in this life
			continue
		}
		if w := first(events, e.Pod, KindWarm, h); !w.IsZero() && !nextCreation(events, e, w) && w.Sub(t0) > to {
			out = append(out, busySpan{pod: e.Pod, from: to, to: w.Sub(t0), warming: true})
		}
	}
	return out
}

// nextCreation reports whether pod e.Pod was created again between e and at: at belongs to a
// later life of the pod.
func nextCreation(events []Event, e Event, at time.Time) bool {
	c := first(events, e.Pod, KindCreated, e.At.Add(time.Nanosecond))
	return !c.IsZero() && c.Before(at)
}

// overlaps reports whether [from, to) meets a busy span of a pod other than except (-1: any).
func overlaps(spans []busySpan, from, to time.Duration, except int) bool {
	for _, s := range spans {
		if s.pod != except && s.from < to && from < s.to {
			return true
		}
	}
	return false
}

// entries measure the load's EntrySpan after every event of kind inside the rollout window:
// KindInService, a pod's entry; KindBoostEnded, its CPU given back (what the give-back cost).
func entries(tr *coldstart.Trace, events []Event, kind Kind, spans []busySpan, b Bounds, steadyP99 float64) []Entry {
	var out []Entry
	for _, e := range events {
		at := e.At.Sub(tr.Start)
		if e.Kind != kind || !b.Rollout.Has(at) {
			continue
		}
		w := coldstart.Window{Start: at, End: min(at+EntrySpan, b.Rollout.End)}
		s := coldstart.Stats(tr, w)
		en := Entry{Pod: e.Pod, Queries: s.Queries, P99Ms: s.P99Ms, Busy: overlaps(spans, w.Start, w.End, e.Pod)}
		if steadyP99 > 0 {
			en.Ratio = s.P99Ms / steadyP99
		}
		out = append(out, en)
	}
	return out
}

// worstQuietP99 is worstP99 over the 10 s windows that meet no pod's start or warmup; ok is
// false when there is none.
func worstQuietP99(tr *coldstart.Trace, spans []busySpan, w coldstart.Window) (p99 float64, at time.Duration, ok bool) {
	return worstP99Where(tr, w, func(from, to time.Duration) bool { return overlaps(spans, from, to, -1) })
}

// splitByCause fills r's figures that keep a neighbour's start apart from the cold serve.
func splitByCause(r *Result, tr *coldstart.Trace, events []Event, b Bounds) {
	spans := busySpans(events, tr.Start, b.Rollout.End)
	r.Entries = entries(tr, events, KindInService, spans, b, r.Steady.P99Ms)
	r.GiveBacks = entries(tr, events, KindBoostEnded, spans, b, r.Steady.P99Ms)
	r.NeighboursQueries, r.NeighboursP99Ms = neighbours(tr, events, spans, b.Rollout)
	r.NeighboursRatio = ratioOver(r.NeighboursP99Ms, r.NeighboursQueries, r.Steady.P99Ms)
	r.NeighboursByPhase = neighboursByPhase(tr, events, spans, b.Rollout, r.Steady.P99Ms)
	r.QuietWorst10sP99Ms, r.QuietWorst10sRatio = 0, 0
	if p99, _, ok := worstQuietP99(tr, spans, b.Rollout); ok {
		r.QuietWorst10sP99Ms = p99
		if r.Steady.P99Ms > 0 {
			r.QuietWorst10sRatio = p99 / r.Steady.P99Ms
		}
	}
}

// WorstEntry is r's entry with the highest ratio (nil without one).
func (r *Result) WorstEntry() *Entry {
	var w *Entry
	for i := range r.Entries {
		if w == nil || r.Entries[i].Ratio > w.Ratio {
			w = &r.Entries[i]
		}
	}
	return w
}
