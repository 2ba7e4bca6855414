package cluster

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
)

// JMXAgentConfig keeps the agent's answer small: its JVM metrics (jvm_compilation_time_seconds_total
// among them) plus the one MBean the JIT signal could also be read from, not Pinot's thousands.
const JMXAgentConfig = `includeObjectNames: ["java.lang:type=Compilation"]
`

// BrokerJMXAgentOpts are the first broker's JMX agent options (Broker.JMXAgentOpts).
func (c *Cluster) BrokerJMXAgentOpts(jar string) ([]string, error) {
	return c.Broker(0).JMXAgentOpts(jar)
}

// JMXAgentOpts are the broker JVM options that load the Prometheus JMX exporter java agent (jar
// from InstallJMXAgent) on 127.0.0.1:Ports().JMX, as Pinot's image does on port 8008. Pass them to
// Start with WithBrokerJVMOpts.
func (b Broker) JMXAgentOpts(jar string) ([]string, error) {
	c := b.c
	conf := filepath.Join(c.work, b.Role(), "jmx-agent.yaml")
	if err := os.MkdirAll(filepath.Dir(conf), 0o755); err != nil {
		return nil, fmt.Errorf("JMX agent config: %w", err)
	}
	if err := os.WriteFile(conf, []byte(JMXAgentConfig), 0o644); err != nil {
		return nil, fmt.Errorf("JMX agent config: %w", err)
	}
	return []string{"-javaagent:" + jar + "=" + loopback + ":" + strconv.Itoa(b.Ports().JMX) + ":" + conf}, nil
}

// BrokerJVMMetricsURL is the first broker's JMX exporter endpoint (Broker.JVMMetricsURL).
func (c *Cluster) BrokerJVMMetricsURL() string { return c.Broker(0).JVMMetricsURL() }

// JVMMetricsURL is the JMX exporter agent's endpoint when the broker runs with it.
func (b Broker) JVMMetricsURL() string {
	return fmt.Sprintf("http://%s:%d/metrics", loopback, b.Ports().JMX)
}

// BrokerCompileTimeURL is the first broker's compile-time series (Broker.CompileTimeURL).
func (c *Cluster) BrokerCompileTimeURL() string { return c.Broker(0).CompileTimeURL() }

// CompileTimeURL asks the agent for the JIT compile-time series alone: what
// WARMUP_JVM_METRICS_URL is set to.
func (b Broker) CompileTimeURL() string {
	return b.JVMMetricsURL() + "?name[]=jvm_compilation_time_seconds_total"
}
