package zkclient

import (
	"slices"
	"time"
)

// msPerNs converts a latency to the milliseconds the study's percentiles are in.
const msPerNs = 1e-6

// Tally counts the queries sent in a window, and those of them that went to one broker.
type Tally struct {
	Sent      int // every query sent in the window, whatever broker (or none)
	NoBroker  int // the selector had no broker to pick
	ToBroker  int // picked the broker
	OK        int // of ToBroker: answered in time without exceptions
	Errors    int // of ToBroker: failed
	Cancelled int // of ToBroker: no answer within the timeout
}

// Share is ToBroker / Sent (0 for an empty window).
func (t Tally) Share() float64 {
	if t.Sent == 0 {
		return 0
	}
	return float64(t.ToBroker) / float64(t.Sent)
}

// Add sums two tallies, e.g. the same window of several restarts.
func (t Tally) Add(o Tally) Tally {
	return Tally{Sent: t.Sent + o.Sent, NoBroker: t.NoBroker + o.NoBroker, ToBroker: t.ToBroker + o.ToBroker,
		OK: t.OK + o.OK, Errors: t.Errors + o.Errors, Cancelled: t.Cancelled + o.Cancelled}
}

// Count tallies the records sent in [from, to) against broker (host:port).
func Count(records []Record, broker string, from, to time.Time) Tally {
	var t Tally
	for _, r := range records {
		if r.Sent.Before(from) || !r.Sent.Before(to) {
			continue
		}
		t.Sent++
		switch {
		case r.Broker == "":
			t.NoBroker++
			continue
		case r.Broker != broker:
			continue
		}
		t.ToBroker++
		switch {
		case r.Cancelled:
			t.Cancelled++
		case r.Err != "":
			t.Errors++
		default:
			t.OK++
		}
	}
	return t
}

// Latencies are the round trips (ms, sorted) of the queries sent in [from, to) that went to
// broker (any broker when empty), cancellations counted at the timeout as the study does: feed
// them to coldstart.Percentile.
func Latencies(records []Record, broker string, from, to time.Time) []float64 {
	var out []float64
	for _, r := range records {
		if r.Sent.Before(from) || !r.Sent.Before(to) || r.Broker == "" || (broker != "" && r.Broker != broker) {
			continue
		}
		out = append(out, float64(r.Latency)*msPerNs)
	}
	slices.Sort(out)
	return out
}

// FirstSelected is the first instant at or after since from which the selector's list holds
// broker: the instant it entered a list changed after since, or since itself when the list in
// force then already held it. ok is false if it never did.
func FirstSelected(selections []Selection, broker string, since time.Time) (at time.Time, ok bool) {
	for i, s := range selections {
		if !slices.Contains(s.Brokers, broker) {
			continue
		}
		if !s.At.Before(since) {
			return s.At, true
		}
		if i+1 == len(selections) || selections[i+1].At.After(since) {
			return since, true // in force at since
		}
	}
	return time.Time{}, false
}

// Dropped is the first instant at or after since when the selector's list stopped holding broker
// (a list without it took over); ok is false if that never happened after since.
func Dropped(selections []Selection, broker string, since time.Time) (at time.Time, ok bool) {
	for i := 1; i < len(selections); i++ {
		s := selections[i]
		if s.At.Before(since) {
			continue
		}
		if slices.Contains(selections[i-1].Brokers, broker) && !slices.Contains(s.Brokers, broker) {
			return s.At, true
		}
	}
	return time.Time{}, false
}
