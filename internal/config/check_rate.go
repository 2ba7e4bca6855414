package config

import (
	"fmt"
	"math"
	"strconv"
)

// expected holds the words of the variables whose parse error says more than
// their type's (expectation).
var expected = map[string]string{
	"WARMUP_MAX_PROBE_RATE": probeRateExpected,
}

const probeRateExpected = "probes per second, 0 (no cap) or more, such as 20"

// checkProbeRate validates the run's cap on queries a second, and weighs it
// against the floor: a floor the cap cannot give within the budget is a
// warning (every run ends by its budget), and with fail-closed an error (no run
// is ever warm, so the gate never opens).
func (c Config) checkProbeRate() (warn string, err error) {
	// Written so that NaN fails too; +Inf is no rate.
	if !(c.MaxProbeRate >= 0) || math.IsInf(c.MaxProbeRate, 1) {
		return "", fmt.Errorf("WARMUP_MAX_PROBE_RATE=%g: expected %s", c.MaxProbeRate, probeRateExpected)
	}
	if c.MaxProbeRate == 0 || !c.Enabled || c.MinIterations == 0 {
		return "", nil
	}
	need := float64(c.MinIterations) / c.MaxProbeRate
	if need <= c.Budget.Seconds() {
		return "", nil
	}
	short := fmt.Sprintf("WARMUP_MAX_PROBE_RATE=%g: WARMUP_MIN_ITERATIONS=%d takes %s s at that rate, more than WARMUP_BUDGET=%s",
		c.MaxProbeRate, c.MinIterations, tenths(need), c.Budget)
	// The slowest rate that reaches the floor, rounded up to a tenth.
	least := tenths(math.Ceil(float64(c.MinIterations)/c.Budget.Seconds()*10) / 10)
	if c.FailClosed {
		return "", fmt.Errorf("%s, and WARMUP_FAIL_CLOSED=true keeps the gate shut until a run is warm: expected at least %s probes per second (or a lower floor, a longer budget)", short, least)
	}
	return fmt.Sprintf("%s: every run will end by its budget, short of its floor (at least %s probes per second reach it)", short, least), nil
}

// tenths prints v to a tenth at most: 60, 142.9.
func tenths(v float64) string {
	return strconv.FormatFloat(math.Round(v*10)/10, 'f', -1, 64)
}
