package bench

import (
	"strings"
	"testing"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/e2e/coldstart"
)

func TestSteadyConfigCheck(t *testing.T) {
	ok := SteadyConfig{Modes: []JVMMode{{Name: "c2"}, {Name: "c1", Opts: []string{"-XX:TieredStopAtLevel=1"}}},
		Rounds: 2, Rate: 50, Load: 4 * time.Minute, Slice: 30 * time.Second, CapacityLevels: []int{4}, CapacityStep: 10 * time.Second}
	if err := ok.Check(); err != nil {
		t.Fatalf("a good config: %v", err)
	}
	for _, tc := range []struct {
		edit func(*SteadyConfig)
		want string
	}{
		{func(c *SteadyConfig) { c.Modes = nil }, "no JVM mode"},
		{func(c *SteadyConfig) { c.Modes = []JVMMode{{Name: "a"}, {Name: "a"}} }, `JVM mode "a": want a unique`},
		{func(c *SteadyConfig) { c.Modes = []JVMMode{{Name: ""}} }, `JVM mode "": want a unique, non-empty name`},
		{func(c *SteadyConfig) { c.Modes[1].Opts = []string{"TieredStopAtLevel=1"} }, `JVM mode c1: option "TieredStopAtLevel=1": want a JVM option`},
		{func(c *SteadyConfig) { c.Rounds = 0 }, "rounds 0: want ≥ 1"},
		{func(c *SteadyConfig) { c.Rate = -1 }, "rate -1: want ≥ 0"},
		{func(c *SteadyConfig) { c.Slice = 5 * time.Minute }, "load 4m0s in slices of 5m0s"},
		{func(c *SteadyConfig) { c.CapacityStep = 0 }, "capacity step 0s"},
	} {
		c := ok
		c.Modes = append([]JVMMode(nil), ok.Modes...)
		tc.edit(&c)
		if err := c.Check(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("err = %v, want %q", err, tc.want)
		}
	}
}

func steadyRun(p99s []float64, compiler float64, qps float64) SteadyRun {
	r := SteadyRun{Capacity: []coldstart.CapacityStep{{Concurrency: 4, QPS: qps, P99Ms: 40}}}
	for k, p := range p99s {
		r.Slices = append(r.Slices, SteadySlice{From: float64(30 * k), To: float64(30 * (k + 1)),
			Stats: coldstart.WindowStats{Queries: 1500, P50Ms: p / 4, P99Ms: p}, BrokerCPUSeconds: 6, CompilerCPUSeconds: compiler})
	}
	return r
}

func TestSteadyMarkdown(t *testing.T) {
	s := &SteadyStudy{PinotVersion: "1.5.1", Mix: "builtin", RateQPS: 50, LoadSeconds: 60, TimeoutMs: 2000,
		BrokerJVMOpts: []string{"-Xmx1G"},
		Modes:         []JVMMode{{Name: "c2"}, {Name: "c1", Opts: []string{"-XX:TieredStopAtLevel=1"}}},
		Runs: map[string][]SteadyRun{
			"c2": {steadyRun([]float64{200, 40}, 3, 70), steadyRun([]float64{100, 30}, 1.5, 80), steadyRun([]float64{150, 50}, 3, 75)},
			"c1": {steadyRun([]float64{45, 35}, 0.1, 60)},
		}}
	md := SteadyMarkdown(s)
	for _, want := range []string{
		"Steady study, mix builtin: Pinot 1.5.1, 50 QPS open loop for 60 s",
		"- `c2`: nothing more (3 runs)",
		"- `c1`: -XX:TieredStopAtLevel=1 (1 runs)",
		"| slice | c2 | c1 |",
		"| 0–30 s | **150** [100 – 200] | **45.0** [45.0 – 45.0] |",
		"| 30–60 s | **40.0** [30.0 – 50.0] | **35.0** [35.0 – 35.0] |",
		// 3 s of compiler CPU over 1,500 queries: 2 ms a query.
		"| 0–30 s | **2.0** [1.0 – 2.0] | **0.1** [0.1 – 0.1] |",
		"| 4 | **75.0** [70.0 – 80.0] | **40.0** [40.0 – 40.0] | **60.0** [60.0 – 60.0] | **40.0** [40.0 – 40.0] |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("steady markdown lacks %q:\n%s", want, md)
		}
	}
}

func TestWriteSteady(t *testing.T) {
	s := &SteadyStudy{Mix: "builtin", Modes: []JVMMode{{Name: "c2"}}, Runs: map[string][]SteadyRun{"c2": {steadyRun([]float64{10}, 0, 1)}}}
	j, md, err := WriteSteady(t.TempDir(), "steady-builtin", s)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(j, "steady-builtin.json") || !strings.HasSuffix(md, "steady-builtin.md") {
		t.Errorf("paths %s, %s", j, md)
	}
}
