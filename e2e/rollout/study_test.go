package rollout

import (
	"strings"
	"testing"
	"time"
)

func TestConfigCheckNamesTheBadField(t *testing.T) {
	ok := Config{Out: t.TempDir()}.withDefaults()
	if err := ok.check(); err != nil {
		t.Fatalf("defaults: %v", err)
	}
	for _, tc := range []struct {
		edit func(*Config)
		want string
	}{
		{func(c *Config) { c.FleetWarmup = -time.Second }, "fleet warmup -1s: want ≥ 0"},
		{func(c *Config) { c.Rate = -1 }, "rate -1: want ≥ 0"},
		{func(c *Config) { c.Rollouts = -1 }, "rollouts -1: want ≥ 1"},
		{func(c *Config) { c.Arms = []string{"nope"} }, "nope"},
		{func(c *Config) { c.Brokers = 1 }, "brokers 1: want ≥ 2"},
		{func(c *Config) { c.BrokerCPULimit = "half" }, `broker CPU request "300m", limit "half": want Kubernetes CPU quantities`},
		{func(c *Config) { c.BrokerCPULimit = "200m" }, "broker CPU request 300m, limit 200m: want a request > 0 and a limit ≥ it"},
		{func(c *Config) { c.ReadinessDelay = -time.Second }, "readiness delay -1s"},
		{func(c *Config) { c.BoostCompilers = 1 }, "boost compilers 1: want ≥ 2"},
		{func(c *Config) { c.GentleConcurrency = 65 }, "gentle concurrency 65: want 1–64"},
		{func(c *Config) { c.PodBound = -time.Minute }, "pod bound -1m0s: want > 0"},
		{func(c *Config) { c.SteadyWait = 10 * time.Second }, "steady wait 10s: want ≥ warm 15s"},
		{func(c *Config) { c.SidecarEnv = map[string]string{"WARMUP_NOPE": "1"} }, "sidecar env WARMUP_NOPE"},
	} {
		c := ok
		tc.edit(&c)
		err := c.check()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("check() = %v, want an error with %q", err, tc.want)
		}
	}
}

// A given rate skips the calibration, which is what warmed the fleet: the command's default
// warms it instead, and the smoke keeps that short.
func TestAGivenRateWarmsTheFleetFirst(t *testing.T) {
	if DefaultFleetWarmup < time.Minute {
		t.Errorf("DefaultFleetWarmup %s: a fleet of fresh brokers needs minutes of load to be warm", DefaultFleetWarmup)
	}
	sm := Smoke(Config{Rate: 20, FleetWarmup: DefaultFleetWarmup})
	if sm.FleetWarmup != 10*time.Second {
		t.Errorf("smoke fleet warmup %s, want 10s", sm.FleetWarmup)
	}
	if sm := Smoke(Config{}); sm.FleetWarmup != 0 {
		t.Errorf("smoke without a rate warms the fleet for %s, want 0 (the calibration does)", sm.FleetWarmup)
	}
}

// Every pod the study asks for must fit the node, or the scheduler leaves one Pending: the
// scale-out's fourth pod with its sidecar is what 3 × 500m does not fit on 2 cores.
func TestThePodsMustFitTheNode(t *testing.T) {
	c := Config{Out: t.TempDir(), ScaleOut: true, BrokerCPURequest: "500m"}.withDefaults()
	err := c.checkFits(500, 2000)
	if err == nil || !strings.Contains(err.Error(), "4 pods × (500m + the sidecar's 50m) = 2200m, more than the node's 2000m") {
		t.Errorf("3 × 500m + a scale-out on 2 cores: %v", err)
	}
	if err := c.checkFits(300, 2000); err != nil {
		t.Errorf("the default 300m: %v", err)
	}
	c.Arms = []string{ArmOff, ArmLBSlowStart} // no sidecar: 4 × 500m fits
	if err := c.checkFits(500, 2000); err != nil {
		t.Errorf("no ON arm, 4 × 500m on 2 cores: %v", err)
	}
}
