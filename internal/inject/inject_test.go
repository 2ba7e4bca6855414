package inject

import (
	"reflect"
	"strings"
	"testing"

	"github.com/warmup-sidecar/warmup-sidecar/internal/inject/find"
)

const sidecar = "warmup-sidecar"

func TestFixturesGetOneSidecarPerBrokerWithTheirOwnPort(t *testing.T) {
	for _, tc := range []struct {
		fixture string
		port    string
	}{
		{"default.yaml", "8099"},
		{"customized.yaml", "8199"},
	} {
		t.Run(tc.fixture, func(t *testing.T) {
			in := fixture(t, tc.fixture)
			out := mustInject(t, in)
			brokers := brokerStatefulSets(objects(t, out))
			if len(brokers) != 1 {
				t.Fatalf("want 1 broker StatefulSet, got %d", len(brokers))
			}
			b := brokers[0]
			if n := countNamed(b, sidecar); n != 1 {
				t.Fatalf("want exactly one %s container, got %d", sidecar, n)
			}
			env := envOf(containerNamed(b, "containers", sidecar))
			if got, want := env["WARMUP_BROKER_URL"], "http://127.0.0.1:"+tc.port; got != want {
				t.Errorf("WARMUP_BROKER_URL = %q, want %q (port read from the StatefulSet)", got, want)
			}
			if got, want := env["WARMUP_CONTROLLER_URL"], "http://pinot-controller:9000"; got != want {
				t.Errorf("WARMUP_CONTROLLER_URL = %q, want %q (the controller Service in the stream)", got, want)
			}
		})
	}
}

func TestOtherDocumentsAreByteIdentical(t *testing.T) {
	for _, name := range []string{"default.yaml", "customized.yaml"} {
		t.Run(name, func(t *testing.T) {
			in := find.SplitStream(fixture(t, name))
			out := find.SplitStream([]byte(mustInject(t, fixture(t, name))))
			if len(in) != len(out) {
				t.Fatalf("document count changed: %d -> %d", len(in), len(out))
			}
			changed := 0
			for i := range in {
				if in[i] == out[i] {
					continue
				}
				changed++
				if !strings.Contains(in[i].Body, "kind: StatefulSet") || !strings.Contains(in[i].Body, "name: pinot-broker\n") {
					t.Errorf("document %d changed but is not the broker StatefulSet:\n%s", i+1, in[i].Body)
				}
			}
			if changed != 1 {
				t.Errorf("want only the broker StatefulSet changed, %d documents changed", changed)
			}
		})
	}
}

func TestBrokerContainerAndRestOfPodUnchanged(t *testing.T) {
	for _, name := range []string{"default.yaml", "customized.yaml"} {
		t.Run(name, func(t *testing.T) {
			before := brokerStatefulSets(objects(t, string(fixture(t, name))))[0]
			after := brokerStatefulSets(objects(t, mustInject(t, fixture(t, name))))[0]
			// But for its readiness and startup probes, which the default (decidedBy auto) starts
			// at once on these brokers without a CPU limit (decidedby_test.go).
			b, a := containerNamed(before, "containers", "broker"), containerNamed(after, "containers", "broker")
			for _, k := range []string{"readinessProbe", "startupProbe"} {
				delete(b, k)
				delete(a, k)
			}
			if !reflect.DeepEqual(b, a) {
				t.Error("the broker container changed")
			}
			// Everything but the containers list is as it was (the default adds no volume).
			strip := func(o k8sObject) k8sObject {
				pod := o.get("spec", "template", "spec").(map[string]any)
				delete(pod, "containers")
				return o
			}
			if !reflect.DeepEqual(strip(before), strip(after)) {
				t.Error("the StatefulSet changed outside its containers list")
			}
		})
	}
}

func TestInjectTwiceEqualsOnce(t *testing.T) {
	for _, args := range [][]string{nil, {"--values", writeValues(t, nativeAuthListener), "--kube-version", "v1.29.0"}} {
		for _, name := range []string{"default.yaml", "customized.yaml"} {
			once := mustInject(t, fixture(t, name), args...)
			twice := mustInject(t, []byte(once), args...)
			if once != twice {
				t.Errorf("%s %v: a second run changed the output", name, args)
			}
		}
	}
}

func TestValuesChangeTheEnv(t *testing.T) {
	values := writeValues(t, `
warmup:
  budget: 45s
  minIterations: 2500
  concurrency: 4
  tables: [airlineStats, baseballStats]
  queries: ["SELECT COUNT(*) FROM airlineStats", "SELECT 1"]
  failClosed: true
  logLevel: debug
  controllerUrl: http://ctl.pinot.svc:9000
`)
	out := mustInject(t, fixture(t, "default.yaml"), "--values", values)
	env := envOf(containerNamed(brokerStatefulSets(objects(t, out))[0], "containers", sidecar))
	want := map[string]string{
		"WARMUP_BUDGET":         "45s",
		"WARMUP_MIN_ITERATIONS": "2500",
		"WARMUP_CONCURRENCY":    "4",
		"WARMUP_TABLES":         "airlineStats,baseballStats",
		"WARMUP_QUERY":          "SELECT COUNT(*) FROM airlineStats;SELECT 1",
		"WARMUP_FAIL_CLOSED":    "true",
		"WARMUP_LOG_LEVEL":      "debug",
		"WARMUP_CONTROLLER_URL": "http://ctl.pinot.svc:9000", // values win over discovery
		"WARMUP_BROKER_URL":     "http://127.0.0.1:8099",
	}
	for k, v := range want {
		if env[k] != v {
			t.Errorf("%s = %q, want %q", k, env[k], v)
		}
	}
}

func TestDefaultsWithoutValues(t *testing.T) {
	out := mustInject(t, fixture(t, "default.yaml"))
	c := containerNamed(brokerStatefulSets(objects(t, out))[0], "containers", sidecar)
	want := map[string]string{
		"WARMUP_ENABLED":        "true",
		"WARMUP_BUDGET":         "15s",
		"WARMUP_EXIT":           "converged",
		"WARMUP_MIN_ITERATIONS": "300",
		"WARMUP_MAX_TABLES":     "5",
		"WARMUP_CONCURRENCY":    "4",
		"WARMUP_PROBE_TIMEOUT":  "5s",
		"WARMUP_FAIL_CLOSED":    "false",
		"WARMUP_REARM":          "true",
		"WARMUP_LISTEN_ADDR":    ":9095",
		"WARMUP_LOG_FORMAT":     "json",
		"WARMUP_LOG_LEVEL":      "info",

		"WARMUP_CONVERGE_TOLERANCE": "0.2",
		"WARMUP_CONVERGE_WINDOWS":   "3",
	}
	env := envOf(c)
	for k, v := range want {
		if env[k] != v {
			t.Errorf("%s = %q, want %q (DESIGN.md default)", k, env[k], v)
		}
	}
	for _, k := range []string{"WARMUP_QUERY", "WARMUP_TABLES", "WARMUP_AUTH_HEADER_FILE", "WARMUP_JVM_METRICS_URL"} {
		if _, ok := env[k]; ok {
			t.Errorf("%s set by default; empty optional settings are left to the sidecar", k)
		}
	}
	ready := c["readinessProbe"].(map[string]any)["httpGet"].(map[string]any)
	live := c["livenessProbe"].(map[string]any)["httpGet"].(map[string]any)
	if ready["path"] != "/readyz" || live["path"] != "/livez" {
		t.Errorf("probes: readiness %v, liveness %v", ready, live)
	}
	sc := c["securityContext"].(map[string]any)
	if sc["runAsNonRoot"] != true || sc["readOnlyRootFilesystem"] != true || sc["allowPrivilegeEscalation"] != false {
		t.Errorf("securityContext %v", sc)
	}
}

const nativeAuthListener = `
nativeSidecar: true
auth:
  existingSecret: pinot-warmup-auth
loopbackListener:
  enabled: true
  port: 8098
`

func TestNativeSidecarAuthAndLoopbackListener(t *testing.T) {
	out := mustInject(t, fixture(t, "customized.yaml"), "--values", writeValues(t, nativeAuthListener), "--kube-version", "v1.29.0")
	objs := objects(t, out)
	b := brokerStatefulSets(objs)[0]
	c := containerNamed(b, "initContainers", sidecar)
	if c == nil || countNamed(b, sidecar) != 1 {
		t.Fatalf("want the sidecar once, in initContainers")
	}
	if c["restartPolicy"] != "Always" {
		t.Errorf("restartPolicy = %v, want Always", c["restartPolicy"])
	}
	if _, ok := c["startupProbe"]; ok {
		t.Error("a native sidecar must not get a startupProbe: gated on warmth it would block the broker")
	}
	inits := b.get("spec", "template", "spec", "initContainers").([]any)
	if inits[0].(map[string]any)["name"] != "wait-zk" || len(inits) != 2 {
		t.Errorf("the chart's own init container must stay first: %v", inits)
	}
	env := envOf(c)
	if env["WARMUP_BROKER_URL"] != "http://127.0.0.1:8098" {
		t.Errorf("WARMUP_BROKER_URL = %q, want the loopback listener", env["WARMUP_BROKER_URL"])
	}
	if env["WARMUP_AUTH_HEADER_FILE"] != "/etc/warmup-sidecar/auth/authorization" {
		t.Errorf("WARMUP_AUTH_HEADER_FILE = %q", env["WARMUP_AUTH_HEADER_FILE"])
	}
	vols := b.get("spec", "template", "spec", "volumes").([]any)
	var secret map[string]any
	for _, v := range vols {
		if v.(map[string]any)["name"] == "warmup-auth" {
			secret = v.(map[string]any)["secret"].(map[string]any)
		}
	}
	if secret == nil || secret["secretName"] != "pinot-warmup-auth" {
		t.Errorf("auth volume missing or wrong: %v", vols)
	}
	var conf string
	for _, o := range objs {
		if o.id() == "ConfigMap/pinot-broker-config" {
			conf = o.get("data", "pinot-broker.conf").(string)
		}
	}
	for _, line := range []string{
		"pinot.broker.client.queryPort=8199",
		"pinot.broker.client.access.protocols=warmup",
		"pinot.broker.client.access.protocols.warmup.host=127.0.0.1",
		"pinot.broker.client.access.protocols.warmup.port=8098",
	} {
		if !strings.Contains(conf, line+"\n") && !strings.HasSuffix(conf, line) {
			t.Errorf("broker config lacks %q:\n%s", line, conf)
		}
	}
}

func TestSwitchingToNativeSidecarMovesIt(t *testing.T) {
	regular := mustInject(t, fixture(t, "default.yaml"))
	native := mustInject(t, []byte(regular), "--values", writeValues(t, "nativeSidecar: true\n"), "--kube-version", "v1.29.0")
	b := brokerStatefulSets(objects(t, native))[0]
	if countNamed(b, sidecar) != 1 || containerNamed(b, "initContainers", sidecar) == nil {
		t.Error("re-running with nativeSidecar must move the sidecar, not add a second one")
	}
}

func TestEnabledFalsePassesThrough(t *testing.T) {
	in := fixture(t, "default.yaml")
	out, stderr, code := runInject(t, in, "--values", writeValues(t, "enabled: false\n"))
	if code != 0 || out != string(in) {
		t.Errorf("enabled: false must pass manifests through unchanged (exit %d): %s", code, stderr)
	}
}

// No broker is an error naming the labels looked for (Helm hides a post-renderer's stderr on
// success); enabled: false passes the same stream through. cmd/warmup-inject runs the binary
// on the official chart without its broker.
func TestNoBrokerIsAnError(t *testing.T) {
	in := []byte("---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  a: \"1\"\n")
	labels := writeValues(t, "brokerPodLabels: {app: olap, component: query}\n")
	out, stderr, code := runInject(t, in, "--values", labels)
	if code != 1 || out != "" || !strings.Contains(stderr, "pod labels app=olap, component=query (brokerPodLabels") {
		t.Errorf("exit %d, stdout %d bytes, stderr %q; want 1, nothing, the labels named", code, len(out), stderr)
	}
	out, stderr, code = runInject(t, in, "--values", writeValues(t, "enabled: false\n"))
	if code != 0 || out != string(in) || !strings.Contains(stderr, "passed through unchanged") {
		t.Errorf("enabled: false: exit %d, stderr %q, out changed: %v", code, stderr, out != string(in))
	}
}

// One stream with two broker StatefulSets (two releases rendered together): each gets one
// sidecar probing its own port.
func TestEachBrokerGetsItsOwnPort(t *testing.T) {
	stream := append(append([]byte{}, fixture(t, "default.yaml")...), fixture(t, "customized.yaml")...)
	brokers := brokerStatefulSets(objects(t, mustInject(t, stream)))
	if len(brokers) != 2 {
		t.Fatalf("want 2 broker StatefulSets, got %d", len(brokers))
	}
	for i, port := range []string{"8099", "8199"} {
		if n := countNamed(brokers[i], sidecar); n != 1 {
			t.Errorf("broker %d: %d sidecars, want 1", i, n)
		}
		if got := envOf(containerNamed(brokers[i], "containers", sidecar))["WARMUP_BROKER_URL"]; got != "http://127.0.0.1:"+port {
			t.Errorf("broker %d: WARMUP_BROKER_URL = %q, want port %s", i, got, port)
		}
	}
}
