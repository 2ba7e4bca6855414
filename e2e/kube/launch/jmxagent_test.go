package launch

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/warmup-sidecar/warmup-sidecar/e2e/cluster"
	"github.com/warmup-sidecar/warmup-sidecar/e2e/kube/podnet"
)

// The agent laid in the image runs as an operator's broker.jvmOpts loads it: the jar and its
// config at the image's paths, the agent's pod-local port on the pod's own host port.
func TestPinotLoadsTheImagesJMXAgent(t *testing.T) {
	p := newTestPinot(t)
	jar := filepath.Join(t.TempDir(), "agent.jar")
	if err := os.WriteFile(jar, []byte("the agent"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := p.LayJMXAgent(jar); err != nil {
		t.Fatal(err)
	}
	hostJar, hostConf := filepath.Join(p.Image, filepath.FromSlash(JMXAgentJar)), filepath.Join(p.Image, filepath.FromSlash(JMXAgentConf))
	if b, err := os.ReadFile(hostJar); err != nil || string(b) != "the agent" {
		t.Errorf("image's agent jar: %q, %v; want the installed jar's bytes", b, err)
	}
	if b, err := os.ReadFile(hostConf); err != nil || string(b) != cluster.JMXAgentConfig {
		t.Errorf("image's agent config: %q, %v; want the harness's", b, err)
	}
	pod, _ := podnet.New(24000, 10).Pod("pinot", "b")
	fx := newPod(t, parseManifests(t, chartFixture(t)), "pinot-broker", "pinot/b", t.TempDir(), pod)
	c := fx.container("broker")
	c.Env = []string{"JAVA_OPTS=-Xmx1G -javaagent:" + JMXAgentJar + "=127.0.0.1:8008:" + JMXAgentConf}
	proc, err := p.Process(c)
	if err != nil {
		t.Fatal(err)
	}
	want := "-javaagent:" + hostJar + "=127.0.0.1:" + hostPort(t, pod, 8008) + ":" + hostConf
	if opts := jvmOpts(t, proc.Argv); !slices.Contains(opts, want) {
		t.Errorf("JVM options %q: want %q", opts, want)
	}
}
