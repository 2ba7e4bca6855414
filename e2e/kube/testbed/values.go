package testbed

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/warmup-sidecar/warmup-sidecar/e2e/cluster"
	"github.com/warmup-sidecar/warmup-sidecar/e2e/kube/launch"
)

// BrokerValues are the official chart's values for brokers beside the harness's cluster
// (docs/testbed.md#the-pinot-cluster-behind-the-brokers): the chart's brokers join the harness's
// Helix cluster through its ZooKeeper; the chart's controller and servers are scaled to 0 (the
// harness runs them), ZooKeeper and the minion (on by default in the chart) are not deployed, and the external
// LoadBalancer Services are off (no cloud gives them an address: helm --wait would wait forever). More values are the study's or the test's.
type BrokerValues struct {
	Replicas int
	// CPURequest and CPULimit are the broker container's (the official chart sets none: an
	// operator who isolates brokers sets both). Empty: none.
	CPURequest, CPULimit string
	// ReadinessDelay is broker.probes.readiness.initialDelaySeconds (the chart's 60 when 0: the
	// chart's template reads a 0 as unset and falls back to probes.initialDelaySeconds, also 60).
	ReadinessDelay int
	// JVMOpts is broker.jvmOpts when set (the chart's own otherwise).
	JVMOpts string
	// Extra is appended as is (YAML at the top level).
	Extra string
}

// Write writes the values file for cluster c at path, making its directory (the bed's work
// directory is made by the bed's start, which needs the values first).
func (v BrokerValues) Write(c *cluster.Cluster, path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("values file's directory: %w", err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, `image:
  repository: %s
  tag: "1.5.1"
  pullPolicy: IfNotPresent
cluster:
  name: %s
zookeeper:
  enabled: false
  urlOverride: "127.0.0.1:%d"
controller:
  replicaCount: 0
  external:
    enabled: false
server:
  replicaCount: 0
minionStateless:
  enabled: false
broker:
  replicaCount: %d
  external:
    enabled: false
`, launch.PinotImage, c.Name(), c.Ports().ZooKeeper, v.Replicas)
	if v.CPURequest != "" || v.CPULimit != "" {
		b.WriteString("  resources:\n    requests:\n      memory: 1.25Gi\n")
		if v.CPURequest != "" {
			fmt.Fprintf(&b, "      cpu: %s\n", v.CPURequest)
		}
		if v.CPULimit != "" {
			fmt.Fprintf(&b, "    limits:\n      cpu: %s\n", v.CPULimit)
		}
	}
	if v.JVMOpts != "" {
		fmt.Fprintf(&b, "  jvmOpts: %s\n", strconv.Quote(v.JVMOpts))
	}
	if v.ReadinessDelay > 0 {
		fmt.Fprintf(&b, "  probes:\n    readiness:\n      initialDelaySeconds: %d\n", v.ReadinessDelay)
	}
	b.WriteString(v.Extra)
	return os.WriteFile(path, []byte(b.String()), 0o644)
}
