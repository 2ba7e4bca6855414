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
	cases := []struct {
		name string
		v    Verdict
		want string
	}{
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
	for _, c := range cases {
		if got := c.v.String(); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}

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
