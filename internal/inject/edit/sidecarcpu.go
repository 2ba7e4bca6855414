package edit

import (
	"github.com/warmup-sidecar/warmup-sidecar/internal/inject/find"
)

// The sidecar's CPU request and the pod's CPU weight. The kubelet weighs a pod's CPU by the sum of
// its containers' CPU requests (cpu.shares, MilliCPUToShares: none is the minimum, 2), so a broker
// with no CPU request, as the official chart ships it, sits in a pod of weight 2 until the sidecar
// adds its own 50m: 51, some 25 times its neighbours'. Measured on the test bed (brokers without a
// CPU request or limit, the builtin mix at a quarter of capacity): in the rollout that turned the
// sidecar on, the pods in service, still without it, were starved while the new pod warmed, and 101
// to 206 queries per rollout went unanswered; the same rollouts between pods that all had the
// sidecar lost none (docs/studies/nolimit-builtin-quarter.md). So where the
// broker container has no CPU request (nor a limit, which the API server would make its request),
// the sidecar gets none either: adding it leaves the pod's weight as it was. The chart's rule
// (pinot-broker-warmup.sidecarResources, for umbrella charts) is the same; a test holds them equal.

// SidecarCPUOverride is the values override that leaves the sidecar's CPU request out for a broker
// that has none, and why ("" when the sidecar keeps its request).
func SidecarCPUOverride(t find.Broker) (map[string]any, string) {
	if cfg := t.ConfiguredCPU(); cfg.Request != "" || cfg.Limit != "" {
		return nil, ""
	}
	// A null removes the chart's default, as `--set resources.requests.cpu=null` would.
	return map[string]any{"requests": map[string]any{"cpu": nil}},
		"the sidecar gets no CPU request, as the broker has none (the pod's CPU weight stays the broker's)"
}
