package cluster

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
)

// jmxAgentConfig keeps the agent's answer small: its JVM metrics (jvm_compilation_time_seconds_total
// among them) plus the one MBean the JIT signal could also be read from, not Pinot's thousands.
const jmxAgentConfig = `includeObjectNames: ["java.lang:type=Compilation"]
`

// BrokerJMXAgentOpts are the broker JVM options that load the Prometheus JMX exporter java agent
// (jar from InstallJMXAgent) on 127.0.0.1:Ports.BrokerJMX, as Pinot's image does on port 8008.
// Pass them to RestartBroker with WithBrokerJVMOpts.
func (c *Cluster) BrokerJMXAgentOpts(jar string) ([]string, error) {
	conf := filepath.Join(c.work, "broker", "jmx-agent.yaml")
	if err := os.MkdirAll(filepath.Dir(conf), 0o755); err != nil {
		return nil, fmt.Errorf("JMX agent config: %w", err)
	}
	if err := os.WriteFile(conf, []byte(jmxAgentConfig), 0o644); err != nil {
		return nil, fmt.Errorf("JMX agent config: %w", err)
	}
	return []string{"-javaagent:" + jar + "=" + loopback + ":" + strconv.Itoa(c.ports.BrokerJMX) + ":" + conf}, nil
}

// BrokerJVMMetricsURL is the JMX exporter agent's endpoint when the broker runs with it.
func (c *Cluster) BrokerJVMMetricsURL() string {
	return fmt.Sprintf("http://%s:%d/metrics", loopback, c.ports.BrokerJMX)
}

// BrokerCompileTimeURL asks the agent for the JIT compile-time series alone: what
// WARMUP_JVM_METRICS_URL is set to.
func (c *Cluster) BrokerCompileTimeURL() string {
	return c.BrokerJVMMetricsURL() + "?name[]=jvm_compilation_time_seconds_total"
}
