package rollout

import (
	"fmt"
	"slices"
	"strings"
)

// The targets a rollout with the gate deciding is held to (docs/benchmarks.md, "Every arm on a
// mix of your own, and every study against the targets"): nothing lost in any event, each pod's
// first 10 s in the Service and the worst 10 s within a multiple of the steady p99, a rollout
// much shorter than the chart's 60 s delay gives, and a warmup that does not cost the pods in
// service.
const (
	TargetEntryRatio      = 1.5
	TargetWorst10sRatio   = 2.0
	TargetDurationVsOff   = 0.6
	TargetNeighboursRatio = 1.25
)

// Verdict is one target for one arm: whether the study can say (Known), whether the arm met it,
// and the figure it rests on.
type Verdict struct {
	Known  bool
	Met    bool
	Figure string
}

func (v Verdict) String() string {
	switch {
	case !v.Known:
		return "– (" + v.Figure + ")"
	case v.Met:
		return "met: " + v.Figure
	default:
		return "**missed**: " + v.Figure
	}
}

// ArmTargets is one arm against every target, over its rollouts and scale-outs (the duration:
// its rollouts only, against off's in the same study).
type ArmTargets struct {
	Arm                                     string
	Lost, Entry, Worst, Duration, Neighbour Verdict
}

// Targets judges every arm of s against the targets.
func Targets(s *Study) []ArmTargets {
	offDur := medianDuration(s, ArmOff)
	var out []ArmTargets
	for _, arm := range s.ArmNames() {
		a := s.Arms[arm]
		events := a.Events()
		if len(events) == 0 {
			continue
		}
		out = append(out, ArmTargets{Arm: arm, Lost: lostVerdict(events), Entry: entryVerdict(events),
			Worst: worstVerdict(events), Duration: durationVerdict(s, arm, offDur), Neighbour: neighbourVerdict(arm, events)})
	}
	return out
}

// lostVerdict: no failed or cancelled query through the Service in any event, and every event
// finished (an unfinished one lost its end).
func lostVerdict(events []*Result) Verdict {
	lossy, most, unfinished := 0, 0, 0
	for _, r := range events {
		if n := r.Failed + r.Cancelled; n > 0 {
			lossy, most = lossy+1, max(most, n)
		}
		if r.Unfinished != "" {
			unfinished++
		}
	}
	v := Verdict{Known: true, Met: lossy == 0 && unfinished == 0}
	switch {
	case lossy > 0:
		v.Figure = fmt.Sprintf("%d of %s lost queries (at most %d)", lossy, eventsWord(len(events)), most)
	default:
		v.Figure = "0 lost in " + eventsWord(len(events))
	}
	if unfinished > 0 {
		v.Figure += fmt.Sprintf("; %d did not finish", unfinished)
	}
	return v
}

// entryVerdict: every pod's first 10 s in the Service within TargetEntryRatio of the steady p99.
func entryVerdict(events []*Result) Verdict {
	var ratios []float64
	for _, r := range events {
		for _, e := range r.Entries {
			ratios = append(ratios, e.Ratio)
		}
	}
	return maxVerdict(ratios, TargetEntryRatio, "pod", "no pod entered within the event")
}

// worstVerdict: every event's worst 10 s within TargetWorst10sRatio of its steady p99.
func worstVerdict(events []*Result) Verdict {
	var ratios []float64
	for _, r := range events {
		ratios = append(ratios, r.Worst10sRatio)
	}
	return maxVerdict(ratios, TargetWorst10sRatio, "event", "no event")
}

// neighbourVerdict: the pods in service, while a sidecar warmed a pod out of it, within
// TargetNeighboursRatio of the steady p99. An arm without the sidecar has no warmup to judge.
func neighbourVerdict(arm string, events []*Result) Verdict {
	if spec, err := specOf(arm); err != nil || !spec.sidecar {
		return Verdict{Figure: "no warmup"}
	}
	var ratios []float64
	for _, r := range events {
		if p := r.NeighboursByPhase; p != nil && p.Warming.Queries > 0 {
			ratios = append(ratios, p.Warming.Ratio)
		}
	}
	return maxVerdict(ratios, TargetNeighboursRatio, "event", "no query while a pod was warmed")
}

// durationVerdict: the arm's median rollout within TargetDurationVsOff of off's. An unfinished
// rollout misses it.
func durationVerdict(s *Study, arm string, offDur float64) Verdict {
	if arm == ArmOff {
		return Verdict{Figure: "the reference"}
	}
	if offDur == 0 {
		return Verdict{Figure: "no off arm in the study"}
	}
	for _, r := range s.Arms[arm].Rollouts {
		if r.Unfinished != "" {
			return Verdict{Known: true, Figure: "a rollout did not finish"}
		}
	}
	d := medianDuration(s, arm)
	if d == 0 {
		return Verdict{Figure: "no rollout"}
	}
	ratio := d / offDur
	return Verdict{Known: true, Met: ratio <= TargetDurationVsOff, Figure: fmt.Sprintf("%.2f× (%.0f s against %.0f s)", ratio, d, offDur)}
}

// medianDuration is arm's median rollout duration over its finished rollouts, 0 with none.
func medianDuration(s *Study, arm string) float64 {
	a := s.Arms[arm]
	if a == nil {
		return 0
	}
	var d []float64
	for _, r := range a.Rollouts {
		if r.Unfinished == "" {
			d = append(d, r.DurationSeconds)
		}
	}
	if len(d) == 0 {
		return 0
	}
	return median(d)
}

// maxVerdict: every ratio at or under limit; the figure is the highest and how many of what
// (a singular noun: "pod", "event") were over it. none names why there is no ratio.
func maxVerdict(ratios []float64, limit float64, what, none string) Verdict {
	if len(ratios) == 0 {
		return Verdict{Figure: none}
	}
	over := 0
	for _, r := range ratios {
		if r > limit {
			over++
		}
	}
	fig := fmt.Sprintf("max %.1f×", slices.Max(ratios))
	if over > 0 {
		fig += fmt.Sprintf(", %d of %s over", over, countOf(len(ratios), what))
	}
	return Verdict{Known: true, Met: over == 0, Figure: fig}
}

// targetsSection is the report's table of every arm against the targets.
func targetsSection(s *Study) string {
	ts := Targets(s)
	if len(ts) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\n## Against the targets\n\nThe targets a rollout with the gate deciding is held to, every arm measured against them (rollouts and scale-outs; the duration: rollouts, the medians): "+
		"nothing lost through the Service; each pod's first 10 s in the Service ≤ %.1f× the steady p99; the worst 10 s ≤ %.0f×; a rollout ≤ %.1f× `off`'s; "+
		"the pods in service ≤ %.2f× while a sidecar warms a pod.\n\n", TargetEntryRatio, TargetWorst10sRatio, TargetDurationVsOff, TargetNeighboursRatio)
	b.WriteString("| arm | nothing lost | first 10 s in the Service | worst 10 s | duration against `off` | neighbours while a pod is warmed |\n")
	b.WriteString("|---|---|---|---|---|---|\n")
	for _, t := range ts {
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s |\n", t.Arm, t.Lost, t.Entry, t.Worst, t.Duration, t.Neighbour)
	}
	if n := unsettledEvents(s); n > 0 {
		fmt.Fprintf(&b, "\n%s began unsettled (†): their ratios are over an overloaded fleet's steady p99.\n", eventsWord(n))
	}
	return b.String()
}

func eventsWord(n int) string { return countOf(n, "event") }

// countOf is "1 pod" or "n pods".
func countOf(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

func unsettledEvents(s *Study) int {
	n := 0
	for _, a := range s.Arms {
		for _, r := range a.Events() {
			if r.Unsettled != "" {
				n++
			}
		}
	}
	return n
}
