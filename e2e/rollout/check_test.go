package rollout

import (
	"os"
	"strings"
	"testing"

	"github.com/warmup-sidecar/warmup-sidecar/e2e/coldstart"
)

// goodStudy is a study whose every event went through every transition, with its outputs on disk.
func goodStudy(t *testing.T) (*Study, Config, Outputs) {
	t.Helper()
	pod := func(i int, warm float64) PodTimes {
		return PodTimes{Pod: i, TerminateSeconds: 11, HealthySeconds: 20, WarmSeconds: warm, ReadySeconds: 60, InServiceSeconds: 60.1}
	}
	result := func(arm, kind string, pods ...PodTimes) *Result {
		return &Result{Arm: arm, Kind: kind, N: 1, Queries: 100, Steady: coldstart.WindowStats{Queries: 10, OK: 10},
			Pods: pods, Seconds: []Second{{}}, States: []StateSpan{{}}}
	}
	scaled := pod(2, 40)
	scaled.TerminateSeconds = 0
	warmed := func(r *Result) *Result {
		for _, p := range r.Pods {
			r.WarmupCosts = append(r.WarmupCosts, WarmupCost{Pod: p.Pod, WarmingS: 20, Probes: 300, RunS: 20, ProbesPerS: 15})
		}
		return r
	}
	s := &Study{Brokers: 2, Arms: map[string]*Arm{
		ArmOff:       {Rollouts: []*Result{result(ArmOff, "rollout", pod(1, 0), pod(0, 0))}, ScaleOuts: []*Result{result(ArmOff, "scale_out", pod(2, 0))}},
		ArmOnDefault: {Rollouts: []*Result{warmed(result(ArmOnDefault, "rollout", pod(1, 40), pod(0, 40)))}, ScaleOuts: []*Result{warmed(result(ArmOnDefault, "scale_out", scaled))}},
	}}
	window := func(event string) CPUWindow {
		return CPUWindow{Event: event, Brokers: 0.5, Machine: 1.2, Groups: []CPUGroup{{Name: "pod pinot-broker-0"}, {Name: "pod pinot-broker-1"}, {Name: GroupHarness}}}
	}
	s.Platform = &Platform{Kubernetes: "v1.36.1", Etcd: "3.6.8", Helm: "v3.22", Chart: "pinot", Node: Node{CPU: "2"},
		SteadyCPU: []CPUWindow{window("a"), window("b"), window("c"), window("d")}}
	dir := t.TempDir()
	cfg := Config{Arms: []string{ArmOff, ArmOnDefault}, Rollouts: 1, ScaleOut: true, Out: dir, Name: "x"}
	o := cfg.Outputs()
	if err := coldstart.WriteJSON(o.JSON, s); err != nil {
		t.Fatal(err)
	}
	for _, p := range append([]string{o.Markdown}, o.PNGs...) {
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return s, cfg, o
}

// The smoke fails unless every pod went through every transition, the sidecars reported warm,
// the platform was recorded and every output was written; a good study passes.
func TestCheckStudyFailsWhatTheToolMissed(t *testing.T) {
	s, cfg, o := goodStudy(t)
	if err := CheckStudy(s, cfg, o); err != nil {
		t.Fatalf("a good study: %v", err)
	}
	// A study's unfinished event is a result, not the tool failing: its pods need not have got
	// through.
	s.Arms[ArmOff].Rollouts[0].Unfinished = "StatefulSet pinot-broker not rolled out"
	s.Arms[ArmOff].Rollouts[0].Pods[0].ReadySeconds = 0
	if err := CheckStudy(s, cfg, o); err != nil {
		t.Errorf("a study with an unfinished event: %v", err)
	}
	// So is an event begun on a fleet that timed out every steady query: the load reached it.
	s.Arms[ArmOff].ScaleOuts[0].Unsettled = "the fleet still lost queries 180 s into the load"
	s.Arms[ArmOff].ScaleOuts[0].Steady = coldstart.WindowStats{Queries: 10, Cancelled: 10}
	if err := CheckStudy(s, cfg, o); err != nil {
		t.Errorf("a study with an event begun unsettled on an overloaded fleet: %v", err)
	}
	for _, tc := range []struct {
		name string
		edit func(*Study, *Config, *Outputs)
		want string
	}{
		{"a pod never Ready", func(s *Study, _ *Config, _ *Outputs) { s.Arms[ArmOff].Rollouts[0].Pods[0].ReadySeconds = 0 },
			"off rollout 1: pod 1 never went through every transition"},
		{"a pod never terminated", func(s *Study, _ *Config, _ *Outputs) { s.Arms[ArmOff].Rollouts[0].Pods[1].TerminateSeconds = 0 },
			"off rollout 1: pod 0 never went through every transition"},
		{"a pod never in service", func(s *Study, _ *Config, _ *Outputs) { s.Arms[ArmOff].ScaleOuts[0].Pods[0].InServiceSeconds = 0 },
			"off scale_out 1: pod 2 never went through every transition"},
		{"a sidecar never warm", func(s *Study, _ *Config, _ *Outputs) { s.Arms[ArmOnDefault].Rollouts[0].Pods[0].WarmSeconds = 0 },
			"on_default rollout 1: pod 1's sidecar never reported warm"},
		{"a warmup's run not read", func(s *Study, _ *Config, _ *Outputs) { s.Arms[ArmOnDefault].Rollouts[0].WarmupCosts[1].RunS = 0 },
			"on_default rollout 1: pod 0: no warmup cost measured with its sidecar's run"},
		{"a warmup not measured", func(s *Study, _ *Config, _ *Outputs) { s.Arms[ArmOnDefault].ScaleOuts[0].WarmupCosts = nil },
			"on_default scale_out 1: pod 2: no warmup cost measured"},
		{"a pod not re-created", func(s *Study, _ *Config, _ *Outputs) {
			r := s.Arms[ArmOff].Rollouts[0]
			r.Pods = r.Pods[:1]
		}, "off rollout 1: 1 pods created, want 2"},
		{"no scale-out", func(s *Study, _ *Config, _ *Outputs) { s.Arms[ArmOff].ScaleOuts = nil }, "off: 0 scale-outs, want 1"},
		{"no platform", func(s *Study, _ *Config, _ *Outputs) { s.Platform = nil }, "no platform recorded"},
		{"no versions", func(s *Study, _ *Config, _ *Outputs) { s.Platform.Etcd = "" }, `platform: versions or node missing`},
		{"a window short of a pod", func(s *Study, _ *Config, _ *Outputs) {
			s.Platform.SteadyCPU[1].Groups = s.Platform.SteadyCPU[1].Groups[1:]
		},
			"platform: b: CPU of 1 broker pods read (want 2)"},
		{"a window missing", func(s *Study, _ *Config, _ *Outputs) { s.Platform.SteadyCPU = s.Platform.SteadyCPU[1:] },
			"platform: 3 steady CPU windows for 4 events"},
		{"an output missing", func(_ *Study, _ *Config, o *Outputs) { os.Remove(o.PNGs[1]) }, "x-on_default.png missing or empty"},
		{"an unfinished event in a smoke", func(s *Study, c *Config, _ *Outputs) {
			c.Smoke = true
			s.Arms[ArmOff].Rollouts[0].Unfinished = "StatefulSet pinot-broker not rolled out"
		}, "off rollout 1 did not finish: StatefulSet pinot-broker not rolled out"},
		{"a steady window with no answer", func(s *Study, _ *Config, _ *Outputs) {
			s.Arms[ArmOff].Rollouts[0].Steady = coldstart.WindowStats{Queries: 10, Cancelled: 10}
		}, "off rollout 1: no load (steady 10 queries, 0 ok; rollout 100)"},
		{"unsettled, every steady query an error", func(s *Study, _ *Config, _ *Outputs) {
			r := s.Arms[ArmOff].Rollouts[0]
			r.Unsettled, r.Steady = "the fleet still lost queries", coldstart.WindowStats{Queries: 10, Errors: 10}
		}, "off rollout 1: no load (steady 10 queries, 0 ok; rollout 100)"},
		{"an unsettled event in a smoke", func(s *Study, c *Config, _ *Outputs) {
			c.Smoke = true
			s.Arms[ArmOff].Rollouts[0].Unsettled = "the fleet still lost queries 30 s into the load"
		}, "off rollout 1 began unsettled: the fleet still lost queries 30 s into the load"},
		{"an unfinished event with no timeline", func(s *Study, _ *Config, _ *Outputs) {
			r := s.Arms[ArmOff].Rollouts[0]
			r.Unfinished, r.Seconds = "not rolled out", nil
		}, "off rollout 1: no timeline"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, cfg, o := goodStudy(t)
			tc.edit(s, &cfg, &o)
			err := CheckStudy(s, cfg, o)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("CheckStudy: %v, want an error with %q", err, tc.want)
			}
		})
	}
}
