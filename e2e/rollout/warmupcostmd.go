package rollout

import (
	"fmt"
	"strings"
)

// warmupCostHeader is the per-arm table's column of what a warmup costs the rest of the fleet,
// present only in a study that measured it (its older reports render as they were made).
const warmupCostHeader = "warmup: a warming pod's probes/s (× the fleet's QPS); neighbours' p99 while it warms / steady (median, max)"

// hasWarmupCosts: some arm of s has warmups measured.
func hasWarmupCosts(s *Study) bool {
	for _, a := range s.Arms {
		if a.WarmupCost != nil {
			return true
		}
	}
	return false
}

// warmupCostCell is an arm's summary in the per-arm table ("–" without a warmup).
func warmupCostCell(c *WarmupCostSummary) string {
	if c == nil {
		return "–"
	}
	probes := "–"
	if c.ProbesPerS != nil && c.FleetShare != nil {
		probes = fmt.Sprintf("%.0f/s (%.2f×), max %.0f/s (%.2f×)", c.ProbesPerS.Median, c.FleetShare.Median, c.ProbesPerS.Max, c.FleetShare.Max)
	}
	neigh := "–"
	if r := c.NeighboursRatio; r != nil {
		neigh = fmt.Sprintf("%.1f× (max %.1f)", r.Median, r.Max)
	}
	return probes + "; " + neigh
}

// WarmupCostSection is every warming pod's cost, event by event ("" for a study that did not
// measure it).
func WarmupCostSection(s *Study) string {
	var rows []string
	for _, arm := range s.ArmNames() {
		for _, r := range s.Arms[arm].Events() {
			for _, c := range r.WarmupCosts {
				rows = append(rows, fmt.Sprintf("| %s | %s %d | %d | %.1f s | %s | %s | %s |\n", arm, r.Kind, r.N, c.Pod, c.WarmingS, runCell(c), rateCell(c), neighbourCostCell(c.Neighbours)))
			}
		}
	}
	if len(rows) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("\n## What a warmup costs the rest of the fleet\n\n")
	fmt.Fprintf(&b, "Each warming pod (its broker healthy, its gate shut, out of the Service): the queries its sidecar sent the broker (its /status when the gate opened: "+
		"the floor probes that succeeded or failed and the no-scatter probes) over its run's time, against the fleet's own traffic (the load's %.0f QPS through the Service); "+
		"and the pods in service's p99 while it warmed and no pod was starting, outside every pod's first 10 s in the Service, over the steady p99.\n\n", s.RateQPS)
	b.WriteString("| arm | event | pod | warming (healthy → warm) | probes in the sidecar's run | probes/s (× the fleet's QPS) | neighbours' p99 while it warms (× steady) |\n")
	b.WriteString("|---|---|---|---|---|---|---|\n")
	b.WriteString(strings.Join(rows, ""))
	return b.String()
}

func runCell(c WarmupCost) string {
	if c.Probes == 0 && c.RunS == 0 {
		return "– (its /status not read)"
	}
	return fmt.Sprintf("%d in %.1f s", c.Probes, c.RunS)
}

func rateCell(c WarmupCost) string {
	if c.ProbesPerS == 0 {
		return "–"
	}
	return fmt.Sprintf("%.0f/s (%.2f×)", c.ProbesPerS, c.FleetShare)
}

func neighbourCostCell(n Neighbours) string {
	if n.Queries == 0 {
		return "– (no query)"
	}
	return fmt.Sprintf("%.0f ms (%.1f×)", n.P99Ms, n.Ratio)
}
