package rollout

import (
	"fmt"
	"slices"
	"strings"
)

// The targets a rollout with the gate deciding is held to (docs/studies/README.md, "Across the
// rolling-restart studies"): nothing lost in any event, each pod's
// first 10 s in the Service (and, on CPU-limited brokers, the worst 10 s) within a multiple of
// the steady p99, a rollout much shorter than the chart's 60 s delay gives, and a warmup that
// costs the pods in service little. Two sets, by the brokers' CPU limit: on brokers without
// one (the official chart's default) a starting JVM and its warmup take the node's spare cores,
// so the pods in service are allowed more while a pod warms, and the entry is held at its median
// with a bound on the worst pod.
type TargetSet struct {
	// Name is the set's in the study's JSON (Study.Targets).
	Name string
	// EntryMedian bounds the median pod's first EntrySpan in the Service over the steady p99 (0:
	// no median target), EntryMax every pod's.
	EntryMedian, EntryMax float64
	// Worst10s bounds every event's worst 10 s over its steady p99 (0: not a target).
	Worst10s float64
	// DurationVsOff bounds the arm's median rollout over off's, Neighbours the pods in service's
	// p99 while a sidecar warms a pod over the steady p99.
	DurationVsOff, Neighbours float64
}

var (
	// CPULimitedTargets are for brokers with a CPU limit: every study until the brokers ran as
	// the chart ships them (300m request and limit), and a study without Study.Targets.
	CPULimitedTargets = TargetSet{Name: "cpu_limited", EntryMax: 1.5, Worst10s: 2, DurationVsOff: 0.6, Neighbours: 1.25}
	// NoCPULimitTargets are for brokers without a CPU limit, as the official chart ships them.
	NoCPULimitTargets = TargetSet{Name: "no_cpu_limit", EntryMedian: 1.5, EntryMax: 2, DurationVsOff: 0.6, Neighbours: 2}
)

// targetSetFor is the set a study of cfg is judged by: by its brokers' CPU limit.
func targetSetFor(cfg Config) TargetSet {
	if cfg.BrokerCPULimit == CPUNone {
		return NoCPULimitTargets
	}
	return CPULimitedTargets
}

// armTargetSet is the set arm is judged by: the study's, but for an arm whose brokers have a CPU
// of their own (on_boost_300m), the set for that CPU.
func armTargetSet(s *Study, arm string) TargetSet {
	if c := s.Arms[arm].BrokerCPU; c != nil {
		if c.CPULimit == "" {
			return NoCPULimitTargets
		}
		return CPULimitedTargets
	}
	return targetSetOf(s)
}

// targetSetOf is the set s records (the CPU-limited one when it records none).
func targetSetOf(s *Study) TargetSet {
	if s.Targets == NoCPULimitTargets.Name {
		return NoCPULimitTargets
	}
	return CPULimitedTargets
}

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

// Targets judges every arm of s against its set of targets (armTargetSet).
func Targets(s *Study) []ArmTargets {
	offDur := medianDuration(s, ArmOff)
	var out []ArmTargets
	for _, arm := range s.ArmNames() {
		a := s.Arms[arm]
		events := a.Events()
		if len(events) == 0 {
			continue
		}
		set := armTargetSet(s, arm)
		out = append(out, ArmTargets{Arm: arm, Lost: lostVerdict(events), Entry: entryVerdict(set, events),
			Worst: worstVerdict(set, events), Duration: durationVerdict(set, s, arm, offDur), Neighbour: neighbourVerdict(set, arm, events)})
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

// entryVerdict: every pod's first 10 s in the Service within set.EntryMax of the steady p99,
// and with set.EntryMedian the median pod's within it.
func entryVerdict(set TargetSet, events []*Result) Verdict {
	var ratios []float64
	for _, r := range events {
		for _, e := range r.Entries {
			ratios = append(ratios, e.Ratio)
		}
	}
	v := maxVerdict(ratios, set.EntryMax, "pod", "no pod entered within the event")
	if set.EntryMedian == 0 || !v.Known {
		return v
	}
	m := median(ratios)
	fig := fmt.Sprintf("median %.1f×", m)
	if m > set.EntryMedian {
		fig += fmt.Sprintf(" (over %.1f×)", set.EntryMedian)
	}
	return Verdict{Known: true, Met: v.Met && m <= set.EntryMedian, Figure: fig + ", " + v.Figure}
}

// worstVerdict: every event's worst 10 s within set.Worst10s of its steady p99; without that
// target, the figure alone.
func worstVerdict(set TargetSet, events []*Result) Verdict {
	var ratios []float64
	for _, r := range events {
		ratios = append(ratios, r.Worst10sRatio)
	}
	if set.Worst10s == 0 {
		if len(ratios) == 0 {
			return Verdict{Figure: "not a target here; no event"}
		}
		return Verdict{Figure: fmt.Sprintf("not a target here; max %.1f×", slices.Max(ratios))}
	}
	return maxVerdict(ratios, set.Worst10s, "event", "no event")
}

// neighbourVerdict: the pods in service, while a sidecar warmed a pod out of it, within
// set.Neighbours of the steady p99. An arm without the sidecar has no warmup to judge.
func neighbourVerdict(set TargetSet, arm string, events []*Result) Verdict {
	if spec, err := specOf(arm); err != nil || !spec.sidecar {
		return Verdict{Figure: "no warmup"}
	}
	var ratios []float64
	for _, r := range events {
		if p := r.NeighboursByPhase; p != nil && p.Warming.Queries > 0 {
			ratios = append(ratios, p.Warming.Ratio)
		}
	}
	return maxVerdict(ratios, set.Neighbours, "event", "no query while a pod was warmed")
}

// durationVerdict: the arm's median rollout within set.DurationVsOff of off's. An unfinished
// rollout misses it.
func durationVerdict(set TargetSet, s *Study, arm string, offDur float64) Verdict {
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
	return Verdict{Known: true, Met: ratio <= set.DurationVsOff, Figure: fmt.Sprintf("%.2f× (%.0f s against %.0f s)", ratio, d, offDur)}
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

// TargetsSection is the report's table of every arm against the targets.
func TargetsSection(s *Study) string {
	ts := Targets(s)
	if len(ts) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString(targetsIntro(targetSetOf(s)))
	b.WriteString("| arm | nothing lost | first 10 s in the Service | worst 10 s | duration against `off` | neighbours while a pod is warmed |\n")
	b.WriteString("|---|---|---|---|---|---|\n")
	var own []string
	for _, t := range ts {
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s |\n", t.Arm, t.Lost, t.Entry, t.Worst, t.Duration, t.Neighbour)
		if set := armTargetSet(s, t.Arm); set.Name != targetSetOf(s).Name {
			own = append(own, fmt.Sprintf("%s runs its brokers at a CPU of its own: it is judged by the targets for %s.", t.Arm, set.brokers()))
		}
	}
	if len(own) > 0 {
		b.WriteString("\n" + strings.Join(own, " ") + "\n")
	}
	if n := unsettledEvents(s); n > 0 {
		fmt.Fprintf(&b, "\n%s began unsettled (†): their ratios are over an overloaded fleet's steady p99.\n", eventsWord(n))
	}
	return b.String()
}

// brokers names the brokers the set is for, with its targets.
func (t TargetSet) brokers() string {
	if t.Name == NoCPULimitTargets.Name {
		return fmt.Sprintf("brokers without a CPU limit (the median pod's first 10 s ≤ %.1f×, every pod's ≤ %.1f×, a rollout ≤ %.1f× `off`'s, the neighbours ≤ %.2f×)",
			t.EntryMedian, t.EntryMax, t.DurationVsOff, t.Neighbours)
	}
	return fmt.Sprintf("CPU-limited brokers (each pod's first 10 s ≤ %.1f×, the worst 10 s ≤ %.0f×, a rollout ≤ %.1f× `off`'s, the neighbours ≤ %.2f×)",
		t.EntryMax, t.Worst10s, t.DurationVsOff, t.Neighbours)
}

// targetsIntro heads the section with the set's targets.
func targetsIntro(t TargetSet) string {
	if t.Name == NoCPULimitTargets.Name {
		return fmt.Sprintf("\n## Against the targets\n\nThe targets a rollout with the gate deciding is held to on brokers without a CPU limit (as the official chart ships them), every arm measured against them (rollouts and scale-outs; the duration: rollouts, the medians): "+
			"nothing lost through the Service; each pod's first 10 s in the Service ≤ %.1f× the steady p99 (the median pod) and ≤ %.1f× (every pod); a rollout ≤ %.1f× `off`'s; "+
			"the pods in service ≤ %.2f× while a sidecar warms a pod. The worst 10 s is given, not a target: a starting JVM without a limit takes the node's spare cores.\n\n",
			t.EntryMedian, t.EntryMax, t.DurationVsOff, t.Neighbours)
	}
	return fmt.Sprintf("\n## Against the targets\n\nThe targets a rollout with the gate deciding is held to, every arm measured against them (rollouts and scale-outs; the duration: rollouts, the medians): "+
		"nothing lost through the Service; each pod's first 10 s in the Service ≤ %.1f× the steady p99; the worst 10 s ≤ %.0f×; a rollout ≤ %.1f× `off`'s; "+
		"the pods in service ≤ %.2f× while a sidecar warms a pod.\n\n", t.EntryMax, t.Worst10s, t.DurationVsOff, t.Neighbours)
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
