package launch

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/warmup-sidecar/warmup-sidecar/e2e/cluster"
)

// Where the official Pinot image keeps the Prometheus JMX exporter java agent and its configs,
// as Pinot's monitoring guide loads it: -javaagent:<JMXAgentJar>=8008:<JMXAgentConf>.
const (
	JMXAgentJar  = pinotHome + "/etc/jmx_prometheus_javaagent/jmx_prometheus_javaagent.jar"
	JMXAgentConf = pinotHome + "/etc/jmx_prometheus_javaagent/configs/pinot.yml"
)

// LayJMXAgent puts the agent's jar (cluster.InstallJMXAgent) and a config at the image's paths, so
// a broker.jvmOpts that loads the agent as an operator's would runs on the test bed. The config is
// the harness's (cluster.JMXAgentConfig: the JVM's metrics, not Pinot's thousands of MBeans the
// image's config exports): the study reads the JIT's compile time from it.
func (p *Pinot) LayJMXAgent(jar string) error {
	dst := filepath.Join(p.Image, filepath.FromSlash(JMXAgentJar))
	conf := filepath.Join(p.Image, filepath.FromSlash(JMXAgentConf))
	if err := os.MkdirAll(filepath.Dir(conf), 0o755); err != nil {
		return fmt.Errorf("lay the JMX agent in the image: %w", err)
	}
	if err := cluster.CopyFile(jar, dst); err != nil {
		return fmt.Errorf("lay the JMX agent in the image: %w", err)
	}
	if err := os.WriteFile(conf, []byte(cluster.JMXAgentConfig), 0o644); err != nil {
		return fmt.Errorf("lay the JMX agent's config in the image: %w", err)
	}
	return nil
}
