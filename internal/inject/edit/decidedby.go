package edit

import (
	"fmt"

	"github.com/warmup-sidecar/warmup-sidecar/internal/inject/chartvalues"
	"github.com/warmup-sidecar/warmup-sidecar/internal/inject/find"
)

// brokerReadiness.decidedBy: auto (the default) resolves per broker StatefulSet. The gate decides
// (sidecar) when the broker container has no CPU limit, as the official chart ships it, or when
// brokerCpuBoost is on: there the warmup can end on its evidence within the budget, and the chart's
// fixed delay would hold a warm pod out. A broker with a CPU limit and no boost keeps its chart's
// probes (chart): throttled, it may end the budget still cold (docs/studies/rollout-mse-mix.md, 300m), and the
// gate would let it in colder than the delay. The rule is the chart's too (templates/_readiness.tpl,
// pinot-broker-warmup.decidedBy); a test holds the two equal.

const (
	decidedByChart   = "chart"
	decidedBySidecar = "sidecar"
	decidedByAuto    = "auto"
)

// decidedBy resolves the setting for a broker whose container's CPU limit as configured is
// cpuLimit ("" for none), with brokerCpuBoost on or off. chart and sidecar stand as set. why says,
// for auto only, what the resolution went by (for inject's log line).
func decidedBy(setting, cpuLimit string, boost bool) (by, why string) {
	if setting != decidedByAuto {
		return setting, ""
	}
	switch {
	case cpuLimit == "":
		return decidedBySidecar, "the broker has no CPU limit"
	case boost:
		return decidedBySidecar, "brokerCpuBoost is on"
	}
	return decidedByChart, fmt.Sprintf("the broker has a CPU limit, %s, and brokerCpuBoost is off", cpuLimit)
}

// BrokerDecidedBy is decidedBy for one broker StatefulSet, from the values, the broker
// container's CPU limit before any boost (an earlier run's boost raised it: find.Broker.ConfiguredCPU)
// and whether brokerCpuBoost is on.
func BrokerDecidedBy(values map[string]any, t find.Broker, boost bool) (by, why string) {
	setting, _ := chartvalues.Lookup(values, "brokerReadiness", "decidedBy").(string)
	return decidedBy(setting, t.ConfiguredCPU().Limit, boost)
}
