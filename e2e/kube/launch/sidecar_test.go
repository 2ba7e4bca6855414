package launch

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/warmup-sidecar/warmup-sidecar/e2e/kube/podnet"
)

// injectedPod is warmup-inject's broker pod with auth, the loopback listener and an AOT cache:
// every kind of value the sidecar launcher translates.
func injectedPod(t *testing.T, pod *podnet.Pod) *podFixture {
	t.Helper()
	m := parseManifests(t, injected(t, `
auth: {existingSecret: broker-auth}
loopbackListener: {enabled: true}
brokerJvm:
  aotCache: {enabled: true, mode: use, volume: {persistentVolumeClaim: {claimName: aot}}}
`))
	fx := newPod(t, m, "pinot-broker", "pinot/pinot-broker-0", t.TempDir(), pod)
	fx.secrets["warmup-auth"] = map[string]string{"authorization": "Basic dXNlcjpwYXNz"}
	return fx
}

// The sidecar warmup-inject renders: its args, the broker URL and listen address on the pod's
// host ports, and the mounted files' host paths; the broker's listener port is the pod's whichever
// container launches first.
func TestSidecarRunsTheInjectedContainer(t *testing.T) {
	for _, order := range [][]string{{"warmup-sidecar", "broker"}, {"broker", "warmup-sidecar"}} {
		t.Run(order[0]+" first", func(t *testing.T) {
			pod, _ := podnet.New(24000, 10).Pod("pinot", "pinot-broker-0")
			fx := injectedPod(t, pod)
			p, s := newTestPinot(t), &Sidecar{Bin: "/build/warmup-sidecar"}
			var side Process
			for _, name := range order {
				c := fx.container(name)
				var err error
				if name == "broker" {
					_, err = p.Process(c)
				} else {
					side, err = s.Process(c)
				}
				if err != nil {
					t.Fatal(err)
				}
			}
			if !slices.Equal(side.Argv, []string{"/build/warmup-sidecar", "serve"}) {
				t.Errorf("argv %q", side.Argv)
			}
			for name, want := range map[string]string{
				"WARMUP_BROKER_URL":       "http://127.0.0.1:" + hostPort(t, pod, 8098),
				"WARMUP_LISTEN_ADDR":      "127.0.0.1:" + hostPort(t, pod, 9095),
				"WARMUP_AUTH_HEADER_FILE": filepath.Join(fx.dir, "volumes", "warmup-auth", "authorization"),
				"WARMUP_BROKER_AOT_LOG":   filepath.Join(fx.dir, "volumes", "warmup-aot-log", "aot.log"),
				"WARMUP_CONTROLLER_URL":   "http://pinot-controller:9000", // another pod's: the Service's to route
				"WARMUP_BUDGET":           "15s",
			} {
				if got, _ := envOf(side.Env, name); got != want {
					t.Errorf("%s=%q, want %q", name, got, want)
				}
			}
			conf, err := os.ReadFile(filepath.Join(fx.dir, "containers", "broker", "launcher", "pinot-broker.conf"))
			if err != nil {
				t.Fatal(err)
			}
			if line := ".warmup.port=" + hostPort(t, pod, 8098) + "\n"; !strings.Contains(string(conf), line) {
				t.Errorf("the broker's listener is not where the sidecar probes (%s):\n%s", line, conf)
			}
		})
	}
}

// A spec that leaves the addresses to the sidecar's defaults gets them translated, so the sidecar
// listens on the pod's port and probes its own pod's broker.
func TestSidecarSetsTheDefaultAddresses(t *testing.T) {
	pod, _ := podnet.New(24000, 10).Pod("pinot", "pinot-broker-0")
	s := &Sidecar{Bin: "/build/warmup-sidecar"}
	proc, err := s.Process(Container{Pod: "pinot/pinot-broker-0", Name: "warmup-sidecar", Image: SidecarImage + ":0.1.0",
		Args: []string{"once"}, Env: []string{"WARMUP_TABLES=t"}, Dir: t.TempDir(), Net: pod})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"WARMUP_TABLES=t", "WARMUP_BROKER_URL=http://127.0.0.1:" + hostPort(t, pod, 8099),
		"WARMUP_LISTEN_ADDR=127.0.0.1:" + hostPort(t, pod, 9095)}
	if !slices.Equal(proc.Env, want) || !slices.Equal(proc.Argv, []string{"/build/warmup-sidecar", "once"}) {
		t.Errorf("argv %q env %q, want env %q", proc.Argv, proc.Env, want)
	}
}

// Only the image's entrypoint runs, and an address the pod's block cannot hold is an error.
func TestSidecarRefuses(t *testing.T) {
	pod, _ := podnet.New(24000, 1).Pod("pinot", "p")
	s := &Sidecar{Bin: "/build/warmup-sidecar"}
	c := Container{Pod: "pinot/p", Name: "warmup-sidecar", Image: SidecarImage, Dir: t.TempDir(), Net: pod}
	c.Command = []string{"/bin/sh"}
	if _, err := s.Process(c); err == nil || !strings.Contains(err.Error(), `command "/bin/sh"`) {
		t.Errorf("another command: %v", err)
	}
	c.Command = nil
	if _, err := s.Process(c); err == nil || !strings.Contains(err.Error(), "block of 1 host ports is full") {
		t.Errorf("two default addresses in a block of one: %v", err)
	}
}
