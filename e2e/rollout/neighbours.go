package rollout

import (
	"slices"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/e2e/coldstart"
)

// What a pod out of service costs the pods in service has three causes that one figure mixes: its
// JVM's start (every arm has one), its sidecar's probes (the warmup's own cost, which issue 36's
// neighbours target is about), and the fleet being one broker short while it is out (the rest of
// the pod's time out: terminating, waiting for a fixed readiness delay). The last is the control:
// what the pods in service answer with no pod starting or being warmed.

// Neighbours is the load's latency in one kind of window of a rollout, outside every pod's first
// EntrySpan in service; Ratio is over the steady p99 (0: no query in such a window).
type Neighbours struct {
	Queries int     `json:"queries"`
	P99Ms   float64 `json:"p99_ms"`
	Ratio   float64 `json:"ratio"`
}

// NeighboursByPhase splits the neighbours' figure by what the pod out of service was doing.
type NeighboursByPhase struct {
	// Starting: a pod's broker JVM was starting (created → healthy).
	Starting Neighbours `json:"starting"`
	// Warming: a pod's sidecar was probing it (healthy → warm) and no pod was starting.
	Warming Neighbours `json:"warming"`
	// OutIdle: a pod was out of the Service and none was starting or being warmed.
	OutIdle Neighbours `json:"out_idle"`
}

// neighbours is the load's latency while a pod started or was warmed out of service and no pod
// was in its entry span: the queries the pods already in service answered meanwhile (a
// cancellation counts at the timeout), what a pod's start and warmup cost its neighbours.
func neighbours(tr *coldstart.Trace, events []Event, spans []busySpan, w coldstart.Window) (queries int, p99 float64) {
	return loadWhile(tr, events, w, func(t time.Duration) bool { return holds(spans, t) })
}

// holds reports whether a span of any pod holds the instant t.
func holds(spans []busySpan, t time.Duration) bool { return overlaps(spans, t, t+1, -1) }

// ratioOver is p99 over the steady p99, 0 when there is no query or no steady figure.
func ratioOver(p99 float64, queries int, steadyP99 float64) float64 {
	if steadyP99 <= 0 || queries == 0 {
		return 0
	}
	return p99 / steadyP99
}

// neighboursByPhase is the neighbours' figure for each of NeighboursByPhase's windows.
func neighboursByPhase(tr *coldstart.Trace, events []Event, spans []busySpan, w coldstart.Window, steadyP99 float64) *NeighboursByPhase {
	var starting, warming []busySpan
	for _, s := range spans {
		if s.warming {
			warming = append(warming, s)
		} else {
			starting = append(starting, s)
		}
	}
	out := outSpans(events, tr.Start, w.End)
	phase := func(keep func(t time.Duration) bool) Neighbours {
		n := Neighbours{}
		n.Queries, n.P99Ms = loadWhile(tr, events, w, keep)
		n.Ratio = ratioOver(n.P99Ms, n.Queries, steadyP99)
		return n
	}
	return &NeighboursByPhase{
		Starting: phase(func(t time.Duration) bool { return holds(starting, t) }),
		Warming:  phase(func(t time.Duration) bool { return holds(warming, t) && !holds(starting, t) }),
		OutIdle:  phase(func(t time.Duration) bool { return holds(out, t) && !holds(spans, t) }),
	}
}

// outSpans are each pod's times out of the Service: out_of_service → its next in_service (or
// end). A pod that was never in (a scale-out's) is not one broker short of the fleet.
func outSpans(events []Event, t0 time.Time, end time.Duration) []busySpan {
	var out []busySpan
	for _, e := range events {
		if e.Kind != KindOutOfService {
			continue
		}
		to := end
		if in := first(events, e.Pod, KindInService, e.At); !in.IsZero() {
			to = in.Sub(t0)
		}
		if from := e.At.Sub(t0); to > from {
			out = append(out, busySpan{pod: e.Pod, from: from, to: to})
		}
	}
	return out
}

// loadWhile is the p99 of the queries scheduled in w at a time keep accepts and outside every
// pod's first EntrySpan in service (a cancellation counts at the timeout).
func loadWhile(tr *coldstart.Trace, events []Event, w coldstart.Window, keep func(t time.Duration) bool) (queries int, p99 float64) {
	var entered []coldstart.Window
	for _, e := range events {
		if e.Kind == KindInService {
			at := e.At.Sub(tr.Start)
			entered = append(entered, coldstart.Window{Start: at, End: at + EntrySpan})
		}
	}
	var lat []float64
	for _, r := range tr.Records {
		t := r.Scheduled
		if !w.Has(t) || !keep(t) || slices.ContainsFunc(entered, func(e coldstart.Window) bool { return e.Has(t) }) {
			continue
		}
		queries++
		switch r.Outcome {
		case coldstart.OutcomeOK:
			lat = append(lat, float64(r.Latency)/float64(time.Millisecond))
		case coldstart.OutcomeCancelled:
			lat = append(lat, float64(tr.Timeout)/float64(time.Millisecond))
		}
	}
	slices.Sort(lat)
	return queries, coldstart.Percentile(lat, 99)
}
