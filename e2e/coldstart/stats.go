package coldstart

import (
	"math"
	"slices"
	"time"
)

// Window is a span of scheduled offsets, [Start, End).
type Window struct {
	Start time.Duration `json:"start_ns"`
	End   time.Duration `json:"end_ns"`
}

// Has reports whether offset d lies in the window.
func (w Window) Has(d time.Duration) bool { return d >= w.Start && d < w.End }

// WindowStats summarise the queries scheduled inside a window.
//
// Percentiles are over successful and cancelled queries, a cancellation counted as
// exactly the timeout: its true
// latency is only known to exceed it, so with cancellations above 1% the p99 reads the
// timeout itself, a floor on the truth. Errors are left out of latency figures (a fast
// failure would flatter them) and reported as ErrorRate. MeanTimeUsedMs is the broker's
// timeUsedMs over successful answers only: cancelled queries never report theirs, so in
// a storm it understates the broker's serve time.
type WindowStats struct {
	Queries        int     `json:"queries"`
	OK             int     `json:"ok"`
	Cancelled      int     `json:"cancelled"`
	Errors         int     `json:"errors"`
	CancelRate     float64 `json:"cancel_rate"`
	ErrorRate      float64 `json:"error_rate"`
	P50Ms          float64 `json:"p50_ms"`
	P99Ms          float64 `json:"p99_ms"`
	MaxMs          float64 `json:"max_ms"`
	MeanTimeUsedMs float64 `json:"mean_time_used_ms"`
	PeakInflight   int     `json:"peak_inflight"`
	// MaxLagMs is the generator's worst delay behind its own schedule in the window.
	MaxLagMs float64 `json:"max_lag_ms"`
}

// Stats summarises tr's queries scheduled in w. PeakInflight is the most queries in flight
// at any instant of w, from all of tr (queries sent before w still count while in flight).
func Stats(tr *Trace, w Window) WindowStats {
	var s WindowStats
	var lat []float64
	var used float64
	var nUsed int
	for _, r := range tr.Records {
		if !w.Has(r.Scheduled) {
			continue
		}
		s.Queries++
		s.MaxLagMs = max(s.MaxLagMs, ms(r.Sent-r.Scheduled))
		switch r.Outcome {
		case OutcomeOK:
			s.OK++
			lat = append(lat, ms(r.Latency))
			if r.TimeUsedMs >= 0 {
				used += float64(r.TimeUsedMs)
				nUsed++
			}
		case OutcomeCancelled:
			s.Cancelled++
			lat = append(lat, ms(tr.Timeout))
		default:
			s.Errors++
		}
	}
	if s.Queries > 0 {
		s.CancelRate = float64(s.Cancelled) / float64(s.Queries)
		s.ErrorRate = float64(s.Errors) / float64(s.Queries)
	}
	slices.Sort(lat)
	s.P50Ms = Percentile(lat, 50)
	s.P99Ms = Percentile(lat, 99)
	if len(lat) > 0 {
		s.MaxMs = lat[len(lat)-1]
	}
	if nUsed > 0 {
		s.MeanTimeUsedMs = used / float64(nUsed)
	}
	s.PeakInflight = PeakInflight(tr, w)
	return s
}

// Percentile is the nearest-rank p-th percentile of sorted values (0 when empty).
func Percentile(sorted []float64, p float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	rank := int(math.Ceil(p / 100 * float64(len(sorted))))
	return sorted[min(max(rank, 1), len(sorted))-1]
}

// InflightPoint is the number of queries in flight from At until the next point.
type InflightPoint struct {
	At       time.Duration `json:"at_ns"`
	Inflight int           `json:"inflight"`
}

// Inflight is the exact in-flight step function of a run, from each query's send and
// end instants (no sampling: a short spike between two samples is not lost).
func Inflight(tr *Trace) []InflightPoint {
	type ev struct {
		at    time.Duration
		delta int
	}
	evs := make([]ev, 0, 2*len(tr.Records))
	for _, r := range tr.Records {
		evs = append(evs, ev{r.Sent, +1}, ev{r.Sent + r.Latency, -1})
	}
	// Ends before starts at the same instant: a query that ends as another starts
	// never counts twice.
	slices.SortFunc(evs, func(a, b ev) int {
		if a.at != b.at {
			return int(a.at - b.at)
		}
		return a.delta - b.delta
	})
	out := make([]InflightPoint, 0, len(evs))
	cur := 0
	for _, e := range evs {
		cur += e.delta
		if n := len(out); n > 0 && out[n-1].At == e.at {
			out[n-1].Inflight = cur
			continue
		}
		out = append(out, InflightPoint{At: e.at, Inflight: cur})
	}
	return out
}

// PeakInflight is the most queries in flight at any instant inside w.
func PeakInflight(tr *Trace, w Window) int {
	peak := levelAt(tr, w.Start) // what was already in flight when w began
	for _, p := range Inflight(tr) {
		if p.At >= w.End {
			break
		}
		if p.At >= w.Start {
			peak = max(peak, p.Inflight)
		}
	}
	return peak
}

func levelAt(tr *Trace, at time.Duration) int {
	n := 0
	for _, r := range tr.Records {
		if r.Sent <= at && r.Sent+r.Latency > at {
			n++
		}
	}
	return n
}

// InflightSeries samples the step function every step over [0, end), for plots.
func InflightSeries(tr *Trace, step, end time.Duration) []InflightPoint {
	pts := Inflight(tr)
	var out []InflightPoint
	j, cur := 0, 0
	for t := time.Duration(0); t < end; t += step {
		for j < len(pts) && pts[j].At <= t {
			cur = pts[j].Inflight
			j++
		}
		out = append(out, InflightPoint{At: t, Inflight: cur})
	}
	return out
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
