package rollout

import "testing"

// The fleet is readied only between arms of different broker CPU: on_boost_300m after a no-limit
// arm and the no-limit arm after it; in a 300m study it is the study's CPU, and nothing is rolled.
func TestTheFleetIsReadiedOnlyForAnotherCPU(t *testing.T) {
	none := Config{BrokerCPURequest: CPUNone, BrokerCPULimit: CPUNone}
	limited := Config{BrokerCPURequest: "300m", BrokerCPULimit: "300m"}
	for _, tc := range []struct {
		cfg      Config
		from, to string
		same     bool
	}{
		{none, ArmOff, ArmOnFast, true},
		{none, ArmOnFast, ArmOnBoost300m, false},
		{none, ArmOnBoost300m, ArmOffFast, false},
		{limited, ArmOnFast, ArmOnBoost300m, true},
		{limited, ArmOnBoost, ArmOnBoost300m, true},
	} {
		if got := tc.cfg.sameCPU(tc.from, tc.to); got != tc.same {
			t.Errorf("%s → %s at %s/%s: same CPU %v, want %v", tc.from, tc.to, tc.cfg.BrokerCPURequest, tc.cfg.BrokerCPULimit, got, tc.same)
		}
	}
}
