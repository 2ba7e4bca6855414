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
		{func(c *Config) { c.BrokerCPULimit = "200m" }, "broker CPU request 300m, limit 200m: want a limit ≥ the request, or none"},
		{func(c *Config) { c.BrokerCPURequest = "0" }, "broker CPU request 0: want > 0, or none (no request, as the official chart ships the broker)"},
		{func(c *Config) { c.BrokerCPULimit = "0" }, "broker CPU limit 0: want > 0, or none (no limit, as the official chart ships the broker)"},
		{func(c *Config) { c.BrokerCPULimit = CPUNone; c.Arms = []string{ArmOnFast, ArmOnBoost} },
			"arm on_boost: its boost raises the broker's CPU limit and gives it back, but the brokers have none (broker CPU limit none) and a resize cannot remove a limit: run on_boost_300m"},
		{func(c *Config) { c.Arms = []string{ArmOnBoostGentle}; c.BoostCPULimit = "300m" }, "boost CPU limit 300m: want above on_boost_gentle's broker CPU limit 300m"},
		{func(c *Config) {
			c.Arms = []string{ArmOnBoost300m}
			c.BoostCPULimit = "250m"
			c.BrokerCPULimit = CPUNone
		},
			"boost CPU limit 250m: want above on_boost_300m's broker CPU limit 300m"},
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
	c := Config{Out: t.TempDir(), ScaleOut: true, BrokerCPURequest: "500m", BrokerCPULimit: "500m"}.withDefaults()
	err := c.checkFits(2000)
	if err == nil || !strings.Contains(err.Error(), "broker CPU request 500m: 4 pods × (500m + the sidecar's 50m) = 2200m, more than the node's 2000m") {
		t.Errorf("3 × 500m + a scale-out on 2 cores: %v", err)
	}
	if c := (Config{Out: t.TempDir(), ScaleOut: true}).withDefaults(); c.checkFits(2000) != nil {
		t.Errorf("the default 300m: %v", c.checkFits(2000))
	}
	c.Arms = []string{ArmOff, ArmLBSlowStart} // no sidecar: 4 × 500m fits
	if err := c.checkFits(2000); err != nil {
		t.Errorf("no ON arm, 4 × 500m on 2 cores: %v", err)
	}
	// Brokers with no request ask nothing of the scheduler; on_boost_300m's ask its own.
	c = Config{Out: t.TempDir(), ScaleOut: true, Brokers: 5, BrokerCPURequest: CPUNone, BrokerCPULimit: CPUNone, Arms: []string{ArmOff, ArmOnFast}}.withDefaults()
	if err := c.checkFits(2000); err != nil {
		t.Errorf("6 pods with no request: %v", err)
	}
	c.Arms = append(c.Arms, ArmOnBoost300m)
	err = c.checkFits(2000)
	if err == nil || !strings.Contains(err.Error(), "on_boost_300m's broker CPU request 300m: 6 pods × (300m + the sidecar's 50m) = 2100m") {
		t.Errorf("6 pods of on_boost_300m on 2 cores: %v", err)
	}
}

// The official chart ships the broker with no CPU request or limit: the study runs it so
// (none), with a request and no limit, or with both; on_boost_300m holds the CPU-limited boosted
// gate as a reference beside no-limit arms. The command's Validate refuses what check refuses.
func TestBrokersAsTheChartShipsThem(t *testing.T) {
	for _, tc := range []struct {
		req, lim string
		arms     []string
	}{
		{CPUNone, CPUNone, StudyArms},
		{"300m", CPUNone, StudyArms},
		{CPUNone, "500m", StudyArms},
		{CPUNone, CPUNone, []string{ArmOff, ArmOffFast, ArmOnDefault, ArmOnFast, ArmOnBoost300m}},
		{"300m", "300m", []string{ArmOnBoost, ArmOnBoost300m}},
	} {
		c := Config{Out: t.TempDir(), BrokerCPURequest: tc.req, BrokerCPULimit: tc.lim, Arms: tc.arms}
		if err := c.Validate(); err != nil {
			t.Errorf("request %s, limit %s, arms %v: %v", tc.req, tc.lim, tc.arms, err)
		}
	}
	if err := (Config{Out: t.TempDir(), BrokerCPULimit: "200m"}).Validate(); err == nil {
		t.Error("Validate: a limit below the default request passed")
	}
	// A limit without a request is the request too, for the scheduler.
	err := Config{Out: t.TempDir(), BrokerCPURequest: CPUNone, BrokerCPULimit: "1", Arms: []string{ArmOff}}.withDefaults().checkFits(2000)
	if err == nil || !strings.Contains(err.Error(), "broker CPU request none (its limit 1 stands for it): 3 pods × (1000m + the sidecar's 0m) = 3000m") {
		t.Errorf("3 pods of limit 1 and no request on 2 cores: %v", err)
	}
}

// on_fast_paced's cap is the one given, or one broker's share of the study's rate.
func TestPacedRateIsOneBrokersShare(t *testing.T) {
	for _, tc := range []struct {
		cfg  Config
		rate float64
		want float64
	}{
		{Config{Brokers: 3}, 60, 20},
		{Config{Brokers: 3}, 35, 11.7},
		{Config{Brokers: 3, PacedRate: 5}, 60, 5},
	} {
		if got := pacedRate(tc.cfg, tc.rate); got != tc.want {
			t.Errorf("%+v at %g QPS: %g, want %g", tc.cfg, tc.rate, got, tc.want)
		}
	}
}
