package main

import (
	"strings"
	"testing"
)

// brokerReadiness.decidedBy auto, the default, through the built binary on the official chart's
// renderings: the gate decides for the broker as the chart ships it (no CPU limit), the chart's
// delay stays for one with a CPU limit, and stderr says which and why.
func TestAutoDecidesByTheBrokersCPULimit(t *testing.T) {
	for _, tc := range []struct {
		fixture string
		delay   int // the broker readinessProbe's initialDelaySeconds after inject
		period  int
		says    string
	}{
		{"default.yaml", 0, 1, "StatefulSet pinot-broker: brokerReadiness.decidedBy auto: sidecar (the broker has no CPU limit)"},
		{"cpu-limits.yaml", 60, 10, "StatefulSet pinot-broker: brokerReadiness.decidedBy auto: chart (the broker has a CPU limit, 2, and brokerCpuBoost is off)"},
	} {
		t.Run(tc.fixture, func(t *testing.T) {
			r := mustRun(t, officialChart(t, tc.fixture))
			probe, _ := container(statefulSet(t, decodeAll(t, r.stdout), "pinot-broker"), "containers", "broker")["readinessProbe"].(map[string]any)
			if probe["initialDelaySeconds"] != tc.delay || probe["periodSeconds"] != tc.period {
				t.Errorf("broker readinessProbe %v, want initialDelaySeconds %d, periodSeconds %d", probe, tc.delay, tc.period)
			}
			if !strings.Contains(r.stderr, tc.says) {
				t.Errorf("stderr does not say %q:\n%s", tc.says, r.stderr)
			}
		})
	}
}
