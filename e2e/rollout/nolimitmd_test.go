package rollout

import (
	"path/filepath"
	"strings"
	"testing"
)

// A study of brokers as the chart ships them, rendered from its JSON: the method and the
// platform say none, the per-arm table carries what a warmup costs the fleet and each arm whose
// broker CPU is its own, the events say which fleet was readied for it, and the targets are the
// set for brokers without a limit.
func TestReportOfBrokersWithoutACPULimit(t *testing.T) {
	s, err := ReadStudy(filepath.Join("testdata", "nolimit-study.json"))
	if err != nil {
		t.Fatal(err)
	}
	md := Markdown(s, "nolimit")
	for _, want := range []string{
		// the method and the platform
		"3 broker pods, the broker container with no CPU request or limit, as the official chart ships it (sidecar: CPU request 50m, limit none;",
		"on_boost_300m's brokers have CPU request 300m and limit 300m by the arm's own broker.resources (the study's: no CPU request or limit, as the official chart ships it). Before an event",
		"broker container CPU request none, limit none; sidecar container CPU request 50m, limit none.",
		"the broker pods used 1.40 cores (no CPU limit), the machine 1.95 of 2 cores",
		"| steady: off-rollout-1 | 60 | 0.60 (none) |",
		// the per-arm table
		"| pod start → Ready | " + warmupCostHeader + " |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n",
		"| 210 s (210–210) | 60 s (60–60) | – |\n",
		"| 110 s (110–110) | 25 s (25–25) | 26/s (0.43×), max 26/s (0.43×); 30.0× (max 30.0) |\n",
		"| on_boost_300m (broker CPU request 300m, limit 300m) | 1 |",
		"| 40/s (0.67×), max 40/s (0.67×); 1.5× (max 1.5) |\n",
		// every event
		"- on_boost_300m rollout 1: the fleet was first rolled to the arm's broker CPU (request 300m, limit 300m) with off_fast's pod template, unmeasured and with no load (70 s), then warmed by 2m0s of the load.\n",
		"## What a warmup costs the rest of the fleet",
		"against the fleet's own traffic (the load's 60 QPS through the Service)",
		"| on_fast | rollout 1 | 2 | 15.2 s | 390 in 15.0 s | 26/s (0.43×) | 600 ms (30.0×) |\n",
		"| on_fast | rollout 1 | 1 | 15.1 s | – (its /status not read) | – | – (no query) |\n",
		// the targets
		"held to on brokers without a CPU limit",
		"| on_fast | met: 0 lost in 1 event | met: median 1.5×, max 1.5× | – (not a target here; max 10.0×) | met: 0.52× (110 s against 210 s) | **missed**: max 30.0×, 1 of 1 event over |",
		"on_boost_300m runs its brokers at a CPU of its own: it is judged by the targets for CPU-limited brokers",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	if t.Failed() {
		t.Log(md)
	}
}

// The method names the broker's CPU as the study set it: both, a request alone, none.
func TestBrokerCPUClause(t *testing.T) {
	for _, tc := range []struct {
		r    Resources
		want string
	}{
		{Resources{CPURequest: "300m", CPULimit: "300m"}, "CPU request 300m and limit 300m"},
		{Resources{CPURequest: "300m"}, "CPU request 300m and no CPU limit, as the official chart ships the limit"},
		{Resources{}, "no CPU request or limit, as the official chart ships it"},
	} {
		if got := brokerCPUClause(tc.r); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.r, got, tc.want)
		}
	}
}
