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
