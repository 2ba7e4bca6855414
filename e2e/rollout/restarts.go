package rollout

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/warmup-sidecar/warmup-sidecar/e2e/coldstart"
)

// RestartsSection is each arm's pod restarts seen one by one (issue 37's record): the cold p99
// (the pod's first 10 s in the Service) against the warm one (the event's steady p99), the
// boost's hold, the compiler's CPU by window and the sidecar's verdicts. Empty when the study
// recorded none of the per-pod extras (no JMX agent, no boost, no sidecar).
func RestartsSection(s *Study) string {
	var b strings.Builder
	for _, arm := range s.ArmNames() {
		a := s.Arms[arm]
		var cold, warm, ready, boost, givenBack, jitStart, jitEntry, jitLate []float64
		verdicts := map[string]int{}
		lost, restarts, extras := 0, 0, false
		for _, r := range a.Events() {
			lost += r.Failed + r.Cancelled
			for _, e := range r.Entries {
				cold = append(cold, e.P99Ms)
			}
			warm = append(warm, r.Steady.P99Ms)
			for _, g := range r.GiveBacks {
				givenBack = append(givenBack, g.Ratio)
			}
			ready = append(ready, readyTimes(r.Pods)...)
			for _, p := range r.Pods {
				restarts++
				if p.BoostSeconds > 0 {
					boost = append(boost, p.BoostSeconds)
				}
				if p.Warmup != "" {
					word, _, _ := strings.Cut(p.Warmup, ",")
					verdicts[word]++
				}
				if j := p.JIT; j != nil {
					extras = true
					jitStart, jitEntry, jitLate = appendSet(jitStart, j.StartToInService), appendSet(jitEntry, j.Entry), appendSet(jitLate, j.Late)
				}
			}
			extras = extras || len(boost) > 0 || len(verdicts) > 0
		}
		if restarts == 0 || !extras {
			continue
		}
		if b.Len() == 0 {
			b.WriteString("\n## Pod restarts one by one\n\n")
			b.WriteString("Every re-created pod of the arm's events: its first 10 s in the Service (cold p99) against the event's steady p99 (warm), medians with the range; the boost's hold (start → the node agent ran the broker at its given-back CPU) and the load's p99 in the 10 s after it against the event's steady p99 (median, max); the broker JVM's JIT compile time (`jvm_compilation_time_seconds_total` from its JMX agent, read every second: the compilations' elapsed time summed over the compiler threads, which under a CPU limit includes time throttled) from start to its entry, in its first 10 s in the Service, and 60–75 s after the entry; the sidecar's outcomes.\n\n")
			b.WriteString("| arm | restarts | lost | cold p99 | warm p99 | cold / warm | start → Ready | boost held | 10 s after give-back / warm | JIT time start → in service | JIT time first 10 s | JIT time 60–75 s after | sidecar outcomes |\n")
			b.WriteString("|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
		}
		ratio := "–"
		if m := median(warm); m > 0 && len(cold) > 0 {
			ratio = fmt.Sprintf("%.1f×", median(cold)/m)
		}
		fmt.Fprintf(&b, "| %s | %d | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", arm, restarts, lost, orDash(cold, msCell), orDash(warm, msCell), ratio,
			orDash(ready, secsCell), orDash(boost, secsCell), entryCell(givenBack), orDash(jitStart, cpuCell), orDash(jitEntry, cpuCell), orDash(jitLate, cpuCell), verdictCell(verdicts))
	}
	return b.String()
}

func appendSet(v []float64, x *float64) []float64 {
	if x == nil {
		return v
	}
	return append(v, *x)
}

func msCell(v []float64) string {
	a := coldstart.Aggregate(v)
	return fmt.Sprintf("%.0f ms (%.0f–%.0f)", a.Median, a.Min, a.Max)
}

func cpuCell(v []float64) string {
	a := coldstart.Aggregate(v)
	return fmt.Sprintf("%.1f s (%.1f–%.1f, n=%d)", a.Median, a.Min, a.Max, len(v))
}

func verdictCell(m map[string]int) string {
	if len(m) == 0 {
		return "–"
	}
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, fmt.Sprintf("%s × %d", k, m[k]))
	}
	return strings.Join(parts, ", ")
}
