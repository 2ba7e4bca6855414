package rollout

import (
	"strings"
	"testing"
)

// Each target is judged from the figures the study recorded: a miss names how far and how
// often, a target the study cannot judge says why, and a met one its figure.
func TestTargetsJudgeEachArmFromItsFigures(t *testing.T) {
	warming := func(ratio float64) *NeighboursByPhase {
		return &NeighboursByPhase{Warming: Neighbours{Queries: 50, Ratio: ratio}}
	}
	s := &Study{Brokers: 3, Arms: map[string]*Arm{
		ArmOff: {Rollouts: []*Result{
			{Arm: ArmOff, N: 1, Kind: "rollout", DurationSeconds: 214, Worst10sRatio: 3, Entries: []Entry{{Ratio: 4}}},
			{Arm: ArmOff, N: 2, Kind: "rollout", DurationSeconds: 200, Worst10sRatio: 2.5, Cancelled: 44},
		}},
		ArmOnFast: {Rollouts: []*Result{
			{Arm: ArmOnFast, N: 1, Kind: "rollout", DurationSeconds: 118, Worst10sRatio: 1.9, Entries: []Entry{{Ratio: 1.2}, {Ratio: 1.4}}, NeighboursByPhase: warming(1.1)},
			{Arm: ArmOnFast, N: 2, Kind: "rollout", DurationSeconds: 126, Worst10sRatio: 1.5, Entries: []Entry{{Ratio: 0.8}}, NeighboursByPhase: warming(1.3)},
		}, ScaleOuts: []*Result{
			{Arm: ArmOnFast, N: 1, Kind: "scale_out", DurationSeconds: 40, Worst10sRatio: 2.2, Entries: []Entry{{Ratio: 1.6}}, NeighboursByPhase: warming(1.0)},
		}},
		ArmOffFast: {Rollouts: []*Result{
			{Arm: ArmOffFast, N: 1, Kind: "rollout", DurationSeconds: 500, Unfinished: "not rolled out", Failed: 3, Worst10sRatio: 3},
		}},
	}}
	got := map[string]ArmTargets{}
	for _, at := range Targets(s) {
		got[at.Arm] = at
	}
	cases := []verdictCase{
		{"off lost", got[ArmOff].Lost, "**missed**: 1 of 2 events lost queries (at most 44)"},
		{"off duration", got[ArmOff].Duration, "– (the reference)"},
		{"off neighbours", got[ArmOff].Neighbour, "– (no warmup)"},
		{"on_fast lost", got[ArmOnFast].Lost, "met: 0 lost in 3 events"},
		// the scale-out's pod counts: 1.6 > 1.5
		{"on_fast entry", got[ArmOnFast].Entry, "**missed**: max 1.6×, 1 of 4 pods over"},
		{"on_fast worst", got[ArmOnFast].Worst, "**missed**: max 2.2×, 1 of 3 events over"},
		// median 122 s against off's median 207 s; scale-outs are not rollouts
		{"on_fast duration", got[ArmOnFast].Duration, "met: 0.59× (122 s against 207 s)"},
		{"on_fast neighbours", got[ArmOnFast].Neighbour, "**missed**: max 1.3×, 1 of 3 events over"},
		{"off_fast lost", got[ArmOffFast].Lost, "**missed**: 1 of 1 event lost queries (at most 3); 1 did not finish"},
		{"off_fast duration", got[ArmOffFast].Duration, "**missed**: a rollout did not finish"},
		{"off_fast entry", got[ArmOffFast].Entry, "– (no pod entered within the event)"},
		{"off_fast worst", got[ArmOffFast].Worst, "**missed**: max 3.0×, 1 of 1 event over"},
	}
	checkVerdicts(t, cases)

	// Without off the duration cannot be judged; a met entry target reads met.
	delete(s.Arms, ArmOff)
	s.Arms[ArmOnFast].ScaleOuts = nil
	for _, at := range Targets(s) {
		if at.Arm != ArmOnFast {
			continue
		}
		if got := at.Duration.String(); got != "– (no off arm in the study)" {
			t.Errorf("duration without off: %q", got)
		}
		if got := at.Entry.String(); got != "met: max 1.4×" {
			t.Errorf("entry within the target: %q", got)
		}
	}
}

// The report carries the section, and a study with an event begun unsettled says its ratios
// rest on an overloaded steady window.
func TestMarkdownHasTheTargetsSection(t *testing.T) {
	s := &Study{Brokers: 2, Arms: map[string]*Arm{ArmOnFast: {Rollouts: []*Result{
		{Arm: ArmOnFast, N: 1, Kind: "rollout", DurationSeconds: 100, Worst10sRatio: 1.2, Unsettled: "lost 3 in the last 15 s"},
	}}}}
	md := Markdown(s, "x")
	for _, want := range []string{"## Against the targets", "| on_fast | met: 0 lost in 1 event |", "1 event began unsettled"} {
		if !strings.Contains(md, want) {
			t.Errorf("Markdown lacks %q:\n%s", want, md)
		}
	}
	if md := Markdown(&Study{Brokers: 2, Arms: map[string]*Arm{}}, "x"); strings.Contains(md, "## Against the targets") {
		t.Errorf("a study with no event has a targets section:\n%s", md)
	}
}

// A study of brokers without a CPU limit is judged by that set: the entry at its median and its
// worst pod, the worst 10 s given but not a target, the neighbours' 2×; its reference arm with a
// CPU of its own (on_boost_300m) by the CPU-limited set. A study that records no set keeps the
// CPU-limited one.
func TestTargetsWithoutACPULimit(t *testing.T) {
	warming := func(ratio float64) *NeighboursByPhase {
		return &NeighboursByPhase{Warming: Neighbours{Queries: 50, Ratio: ratio}}
	}
	s := &Study{Brokers: 3, Targets: NoCPULimitTargets.Name, Arms: map[string]*Arm{
		ArmOff: {Rollouts: []*Result{{Arm: ArmOff, N: 1, Kind: "rollout", DurationSeconds: 200, Worst10sRatio: 9}}},
		ArmOnFast: {Rollouts: []*Result{
			{Arm: ArmOnFast, N: 1, Kind: "rollout", DurationSeconds: 110, Worst10sRatio: 5, Entries: []Entry{{Ratio: 1.2}, {Ratio: 1.9}, {Ratio: 1.4}}, NeighboursByPhase: warming(1.8)},
		}},
		ArmOnDefault: {Rollouts: []*Result{
			{Arm: ArmOnDefault, N: 1, Kind: "rollout", DurationSeconds: 215, Worst10sRatio: 3, Entries: []Entry{{Ratio: 1.6}, {Ratio: 2.4}, {Ratio: 1.1}}, NeighboursByPhase: warming(2.5)},
		}},
		ArmOnBoost300m: {BrokerCPU: &Resources{CPURequest: "300m", CPULimit: "300m"}, Rollouts: []*Result{
			{Arm: ArmOnBoost300m, N: 1, Kind: "rollout", DurationSeconds: 100, Worst10sRatio: 1.9, Entries: []Entry{{Ratio: 1.4}}, NeighboursByPhase: warming(1.8)},
		}},
	}}
	got := map[string]ArmTargets{}
	for _, at := range Targets(s) {
		got[at.Arm] = at
	}
	checkVerdicts(t, []verdictCase{
		{"on_fast entry", got[ArmOnFast].Entry, "met: median 1.4×, max 1.9×"},
		{"on_fast worst", got[ArmOnFast].Worst, "– (not a target here; max 5.0×)"},
		{"on_fast neighbours", got[ArmOnFast].Neighbour, "met: max 1.8×"},
		{"on_fast duration", got[ArmOnFast].Duration, "met: 0.55× (110 s against 200 s)"},
		{"on_default entry", got[ArmOnDefault].Entry, "**missed**: median 1.6× (over 1.5×), max 2.4×, 1 of 3 pods over"},
		{"on_default neighbours", got[ArmOnDefault].Neighbour, "**missed**: max 2.5×, 1 of 1 event over"},
		// the reference: the CPU-limited set (neighbours ≤ 1.25×, the worst 10 s ≤ 2×)
		{"on_boost_300m neighbours", got[ArmOnBoost300m].Neighbour, "**missed**: max 1.8×, 1 of 1 event over"},
		{"on_boost_300m worst", got[ArmOnBoost300m].Worst, "met: max 1.9×"},
		{"on_boost_300m entry", got[ArmOnBoost300m].Entry, "met: max 1.4×"},
	})
	md := TargetsSection(s)
	for _, want := range []string{"held to on brokers without a CPU limit", "≤ 1.5× the steady p99 (the median pod) and ≤ 2.0× (every pod)", "the pods in service ≤ 2.00× while",
		"on_boost_300m runs its brokers at a CPU of its own: it is judged by the targets for CPU-limited brokers (each pod's first 10 s ≤ 1.5×, the worst 10 s ≤ 2×, a rollout ≤ 0.6× `off`'s, the neighbours ≤ 1.25×)."} {
		if !strings.Contains(md, want) {
			t.Errorf("section lacks %q:\n%s", want, md)
		}
	}

	// The same figures in a study that records no set: the CPU-limited targets, as before.
	s.Targets = ""
	for _, at := range Targets(s) {
		if at.Arm == ArmOnFast {
			if got := at.Neighbour.String(); got != "**missed**: max 1.8×, 1 of 1 event over" {
				t.Errorf("no set recorded: neighbours %q, want the 1.25× target", got)
			}
			if got := at.Entry.String(); got != "**missed**: max 1.9×, 1 of 3 pods over" {
				t.Errorf("no set recorded: entry %q, want the 1.5× bound on every pod", got)
			}
		}
	}
	if targetSetFor(Config{BrokerCPULimit: CPUNone}) != NoCPULimitTargets || targetSetFor(Config{BrokerCPULimit: "300m"}) != CPULimitedTargets {
		t.Error("targetSetFor: want the set by the brokers' CPU limit")
	}
}

// verdictCase is one verdict and what it should read.
type verdictCase struct {
	name string
	v    Verdict
	want string
}

func checkVerdicts(t *testing.T, cases []verdictCase) {
	t.Helper()
	for _, c := range cases {
		if got := c.v.String(); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

// The ON arms' decidedBy is said from the study's record: nothing for studies before auto, and
// what auto made of the study's brokers after.
func TestDecidedByDefaultIsTheStudysRecord(t *testing.T) {
	for _, tc := range []struct {
		p    Platform
		want string
	}{
		{Platform{}, ""},
		{Platform{DecidedByDefault: "auto"}, ", where the other ON arms leave it at its default, auto, which lets the sidecar decide for a broker without a CPU limit, as these are"},
		{Platform{DecidedByDefault: "auto", Broker: Resources{CPURequest: "300m", CPULimit: "300m"}}, ", where the other ON arms leave it at its default, auto, which keeps the chart's probe for a broker with a CPU limit, as these have"},
	} {
		if got := decidedByDefault(&tc.p); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.p, got, tc.want)
		}
	}
}
