package rollout

import (
	"math"
	"time"
)

// The JIT windows of a re-created pod, on its own clock: the compiler's time while it starts and
// is warmed out of service, in its first EntrySpan in the Service (the cold serve), and 60–75 s
// after it entered (results/jdk25 found C2 still busy there with the chart's JVM).
const (
	lateJITFrom = 60 * time.Second
	lateJITTo   = 75 * time.Second
)

// PodJIT is the broker JVM's JIT compile time by window (seconds: the JVM's accumulated elapsed
// compile time over its compiler threads, which under a CPU limit counts time throttled too), from
// the JMX agent's readings a second apart; a window the readings do not cover is absent.
type PodJIT struct {
	// Readings: how many readings the pod's life has.
	Readings int `json:"readings"`
	// StartToInService: from the JVM's start (its counter's 0) to the pod's entry in the Service.
	StartToInService *float64 `json:"start_to_in_service_s,omitempty"`
	// Entry: the first EntrySpan in the Service; Late: 60–75 s after the entry.
	Entry *float64 `json:"entry_s,omitempty"`
	Late  *float64 `json:"late_s,omitempty"`
	// Total is the last reading: the compile time of the pod's whole recorded life.
	Total float64 `json:"total_s"`
	// Series is every reading as [seconds since the pod's creation, compile time], rounded to
	// milliseconds: what a different give-back rule would have decided can be replayed on it.
	Series [][2]float64 `json:"series,omitempty"`
}

// podLifeEvents are one pod's events from its creation to its next creation (or the record's end).
type podLifeEvents struct {
	created Event
	events  []Event
}

// lifeOf is the life created starts: pod created.Pod's events at or after it, before the pod's
// next creation.
func lifeOf(events []Event, created Event) podLifeEvents {
	l := podLifeEvents{created: created}
	for _, e := range events {
		if e.Pod != created.Pod || e.At.Before(created.At) {
			continue
		}
		if e.Kind == KindCreated && e.At.After(created.At) {
			break
		}
		l.events = append(l.events, e)
	}
	return l
}

// first is the life's first event of kind.
func (l podLifeEvents) first(kind Kind) (Event, bool) {
	for _, e := range l.events {
		if e.Kind == kind {
			return e, true
		}
	}
	return Event{}, false
}

// jit is the life's PodJIT, its windows placed by the pod's entry inServiceS seconds after its
// start (0: it did not enter; only the total then); nil without readings.
func (l podLifeEvents) jit(inServiceS float64) *PodJIT {
	var rs []Event
	for _, e := range l.events {
		if e.Kind == KindJIT {
			rs = append(rs, e)
		}
	}
	if len(rs) == 0 {
		return nil
	}
	j := &PodJIT{Readings: len(rs), Total: rs[len(rs)-1].Value}
	for _, r := range rs {
		j.Series = append(j.Series, [2]float64{ms(r.At.Sub(l.created.At).Seconds()), ms(r.Value)})
	}
	if inServiceS <= 0 {
		return j
	}
	entry := l.created.At.Add(time.Duration(inServiceS * float64(time.Second)))
	j.StartToInService = compiledBetween(rs, time.Time{}, entry)
	j.Entry = compiledBetween(rs, entry, entry.Add(EntrySpan))
	j.Late = compiledBetween(rs, entry.Add(lateJITFrom), entry.Add(lateJITTo))
	return j
}

// compiledBetween is the compile time spent in [from, to): the last reading at or before to minus
// the last at or before from (0 when from is zero: the JVM's start), or nil when no reading
// comes at or after to (the window is not covered) or none at or before from.
func compiledBetween(rs []Event, from, to time.Time) *float64 {
	at := func(t time.Time) (float64, bool) {
		v, ok := 0.0, false
		for _, r := range rs {
			if r.At.After(t) {
				break
			}
			v, ok = r.Value, true
		}
		return v, ok
	}
	if rs[len(rs)-1].At.Before(to) {
		return nil
	}
	end, _ := at(to)
	start := 0.0
	if !from.IsZero() {
		v, ok := at(from)
		if !ok {
			return nil
		}
		start = v
	}
	d := end - start
	return &d
}

// ms rounds v to three decimals.
func ms(v float64) float64 { return math.Round(v*1000) / 1000 }
