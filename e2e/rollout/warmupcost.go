package rollout

import (
	"cmp"
	"slices"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/e2e/coldstart"
)

// What a warmup costs the rest of the fleet: while a pod's sidecar warms it (broker healthy →
// the gate open, out of service), its probes reach the servers the pods in service query, and on
// brokers without a CPU limit its broker takes the node's spare cores. Two figures per warming
// pod: its probe rate against the fleet's own traffic (the load's rate), and the pods in
// service's p99 meanwhile.

// SidecarRun is a sidecar's warmup run as its /status said once its gate opened (the fields
// are /status's own).
type SidecarRun struct {
	Outcome string `json:"outcome"`
	// Succeeded and Failed are the run's floor probes, NoScatter the no-scatter probes sent first.
	Succeeded int64 `json:"probes_succeeded"`
	Failed    int64 `json:"probes_failed"`
	NoScatter int64 `json:"no_scatter_probes"`
	// Seconds is the run's wall time: from the broker turning healthy to its outcome.
	Seconds float64 `json:"duration_seconds"`
}

// Probes are every query the run sent the broker.
func (r SidecarRun) Probes() int64 { return r.Succeeded + r.Failed + r.NoScatter }

// WarmupCost is one pod's warmup in an event against the rest of the fleet.
type WarmupCost struct {
	Pod int `json:"pod"`
	// WarmingS is the warmup as the study saw it: the broker's /health → the sidecar's /readyz.
	WarmingS float64 `json:"warming_s"`
	// Probes and RunS are the sidecar's run (absent when its /status was not read);
	// ProbesPerS is Probes over RunS (over WarmingS when the run gave no time), FleetShare that
	// over the load's arrivals per second.
	Probes     int64   `json:"probes,omitempty"`
	RunS       float64 `json:"run_s,omitempty"`
	ProbesPerS float64 `json:"probes_per_s,omitempty"`
	FleetShare float64 `json:"x_fleet_qps,omitempty"`
	// Neighbours is the load while this pod was warmed and no pod was starting, outside every
	// pod's first EntrySpan in service: what the pods in service answered meanwhile.
	Neighbours Neighbours `json:"neighbours"`
}

// Spread is a figure's median and highest over an arm's warmups.
type Spread struct {
	Median float64 `json:"median"`
	Max    float64 `json:"max"`
}

// WarmupCostSummary is an arm's WarmupCosts over its events.
type WarmupCostSummary struct {
	// Pods are the warmups measured, Runs those whose sidecar's run was read (the probe figures'),
	// Neighboured those with a query while they warmed (the ratio's).
	Pods        int     `json:"pods"`
	Runs        int     `json:"runs"`
	Neighboured int     `json:"neighboured"`
	ProbesPerS  *Spread `json:"probes_per_s,omitempty"`
	FleetShare  *Spread `json:"x_fleet_qps,omitempty"`
	// NeighboursRatio is the pods in service's p99 while a pod warmed over the steady p99.
	NeighboursRatio *Spread `json:"neighbours_ratio,omitempty"`
}

// warmupCosts are the WarmupCost of every warmup that ended (the gate opened) in the event's
// rollout window; the spans are busySpans', the rate the load's arrivals per second.
func warmupCosts(tr *coldstart.Trace, events []Event, spans []busySpan, w coldstart.Window, steadyP99 float64) []WarmupCost {
	var starting []busySpan
	for _, s := range spans {
		if !s.warming {
			starting = append(starting, s)
		}
	}
	var out []WarmupCost
	for _, s := range spans {
		if !s.warming || !w.Has(s.to) {
			continue
		}
		c := WarmupCost{Pod: s.pod, WarmingS: (s.to - s.from).Seconds()}
		if run := warmRun(events, s.pod, tr.Start.Add(s.from)); run != nil {
			c.Probes, c.RunS = run.Probes(), run.Seconds
			if secs := cmp.Or(c.RunS, c.WarmingS); secs > 0 {
				c.ProbesPerS = float64(c.Probes) / secs
			}
			if tr.Rate > 0 {
				c.FleetShare = c.ProbesPerS / tr.Rate
			}
		}
		own := []busySpan{s}
		c.Neighbours.Queries, c.Neighbours.P99Ms = loadWhile(tr, events, w, func(t time.Duration) bool { return holds(own, t) && !holds(starting, t) })
		c.Neighbours.Ratio = ratioOver(c.Neighbours.P99Ms, c.Neighbours.Queries, steadyP99)
		out = append(out, c)
	}
	return out
}

// warmRun is the sidecar run of pod's first warm event from its broker's healthy at healthy
// (the one that ends its warming span; nil: its /status unread).
func warmRun(events []Event, pod int, healthy time.Time) *SidecarRun {
	for _, e := range events {
		if e.Pod == pod && e.Kind == KindWarm && !e.At.Before(healthy) {
			return e.Run
		}
	}
	return nil
}

// summariseWarmupCosts is the arm's summary over its events' warmups (nil without one).
func summariseWarmupCosts(events []*Result) *WarmupCostSummary {
	var s WarmupCostSummary
	var rate, share, ratio []float64
	for _, r := range events {
		for _, c := range r.WarmupCosts {
			s.Pods++
			if c.ProbesPerS > 0 || c.Probes > 0 {
				s.Runs++
				rate, share = append(rate, c.ProbesPerS), append(share, c.FleetShare)
			}
			if c.Neighbours.Queries > 0 {
				s.Neighboured++
				ratio = append(ratio, c.Neighbours.Ratio)
			}
		}
	}
	if s.Pods == 0 {
		return nil
	}
	s.ProbesPerS, s.FleetShare, s.NeighboursRatio = spreadOf(rate), spreadOf(share), spreadOf(ratio)
	return &s
}

// spreadOf is v's median and highest (nil for none).
func spreadOf(v []float64) *Spread {
	if len(v) == 0 {
		return nil
	}
	return &Spread{Median: median(v), Max: slices.Max(v)}
}
