package inject

import (
	"maps"
	"reflect"
	"strings"
	"testing"

	"github.com/warmup-sidecar/warmup-sidecar/internal/inject/find"
)

const sidecarDecides = "brokerReadiness:\n  decidedBy: sidecar\n"

// probeOf returns a container's probe of that kind as a map (nil when it has none).
func probeOf(c map[string]any, kind string) map[string]any {
	p, _ := c[kind].(map[string]any)
	return p
}

// with returns a copy of m with the given fields set.
func with(m map[string]any, kv ...any) map[string]any {
	out := maps.Clone(m)
	for i := 0; i+1 < len(kv); i += 2 {
		out[kv[i].(string)] = kv[i+1]
	}
	return out
}

// The official chart's broker probes, rewritten: readiness and startup start at once and sample
// every second, a failure lasting as long as before; liveness as the chart rendered it; the sidecar's
// readiness every second too, 10 failures (5 s x 2). Nothing else in the stream changes.
func TestSidecarDecidesStartsTheBrokerProbesAtOnce(t *testing.T) {
	values := writeValues(t, sidecarDecides)
	for _, name := range []string{"default.yaml", "customized.yaml"} {
		t.Run(name, func(t *testing.T) {
			out, stderr, code := runInject(t, fixture(t, name), "--values", values)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			before := containerNamed(brokerStatefulSets(objects(t, string(fixture(t, name))))[0], "containers", "broker")
			sts := brokerStatefulSets(objects(t, out))[0]
			after := containerNamed(sts, "containers", "broker")
			if got, want := probeOf(after, "readinessProbe"), with(probeOf(before, "readinessProbe"),
				"initialDelaySeconds", 0, "periodSeconds", 1, "failureThreshold", 100); !reflect.DeepEqual(got, want) {
				t.Errorf("broker readinessProbe\n got %v\nwant %v", got, want)
			}
			if got, want := probeOf(after, "livenessProbe"), probeOf(before, "livenessProbe"); want == nil || !reflect.DeepEqual(got, want) {
				t.Errorf("broker livenessProbe changed: %v, want the chart's %v", got, want)
			}
			if old := probeOf(before, "startupProbe"); old != nil {
				if got, want := probeOf(after, "startupProbe"), with(old, "initialDelaySeconds", 0, "periodSeconds", 1, "failureThreshold", 160); !reflect.DeepEqual(got, want) {
					t.Errorf("broker startupProbe\n got %v\nwant %v", got, want)
				}
			} else if name == "customized.yaml" {
				t.Fatal("customized.yaml has lost its startupProbe: the test no longer covers it")
			}
			for _, k := range []string{"readinessProbe", "livenessProbe", "startupProbe"} {
				delete(before, k)
				delete(after, k)
			}
			if !reflect.DeepEqual(before, after) {
				t.Error("the broker container changed outside its probes")
			}
			side := probeOf(containerNamed(sts, "containers", sidecar), "readinessProbe")
			want := map[string]any{"httpGet": map[string]any{"path": "/readyz", "port": "warmup"},
				"initialDelaySeconds": 0, "periodSeconds": 1, "timeoutSeconds": 2, "failureThreshold": 10, "successThreshold": 1}
			if !reflect.DeepEqual(side, want) {
				t.Errorf("sidecar readinessProbe\n got %v\nwant %v", side, want)
			}
			if !strings.Contains(stderr, "readinessProbe") || !strings.Contains(stderr, "livenessProbe unchanged") {
				t.Errorf("stderr does not say what was done to the probes: %s", stderr)
			}
			in, res := find.SplitStream(fixture(t, name)), find.SplitStream([]byte(out))
			for i := range in {
				if in[i] != res[i] && !strings.Contains(in[i].Body, "name: pinot-broker\n") {
					t.Errorf("document %d changed but is not the broker StatefulSet", i+1)
				}
			}
			if again := mustInject(t, []byte(out), "--values", values); again != out {
				t.Error("a second run changed the output")
			}
		})
	}
}

// decidedBy: chart: the broker's probes as the chart rendered them, the sidecar's every 5 s, on
// brokers without a CPU limit too (where auto, the default, lets the sidecar decide).
func TestChartDecidesLeavesTheProbes(t *testing.T) {
	chartDecides := writeValues(t, "brokerReadiness:\n  decidedBy: chart\n  periodSeconds: 2\n")
	for _, name := range []string{"default.yaml", "customized.yaml"} {
		t.Run(name, func(t *testing.T) {
			out := mustInject(t, fixture(t, name), "--values", chartDecides)
			before := containerNamed(brokerStatefulSets(objects(t, string(fixture(t, name))))[0], "containers", "broker")
			sts := brokerStatefulSets(objects(t, out))[0]
			after := containerNamed(sts, "containers", "broker")
			for _, k := range []string{"readinessProbe", "livenessProbe", "startupProbe"} {
				if !reflect.DeepEqual(probeOf(after, k), probeOf(before, k)) {
					t.Errorf("broker %s changed: %v, want %v", k, probeOf(after, k), probeOf(before, k))
				}
			}
			side := probeOf(containerNamed(sts, "containers", sidecar), "readinessProbe")
			if side["periodSeconds"] != 5 || side["failureThreshold"] != 2 {
				t.Errorf("sidecar readinessProbe %v, want the chart's period 5, failureThreshold 2", side)
			}
		})
	}
}

func TestSidecarDecidesWithoutBrokerProbes(t *testing.T) {
	values := writeValues(t, sidecarDecides+"warmup:\n  brokerUrl: http://127.0.0.1:8099\n")
	out, stderr, code := runInject(t, fixture(t, "unnamed-port.yaml"), "--values", values)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	broker := containerNamed(brokerStatefulSets(objects(t, out))[0], "containers", "broker")
	if broker["readinessProbe"] != nil || broker["startupProbe"] != nil {
		t.Errorf("probes added to a broker that had none: %v", broker)
	}
	if !strings.Contains(stderr, "no readinessProbe or startupProbe") {
		t.Errorf("stderr does not say there was nothing to start earlier: %s", stderr)
	}
}

func TestSidecarDecidesBadProbeNamesTheField(t *testing.T) {
	in := brokerOnly(8099) + "            periodSeconds: ten\n"
	out, stderr, code := runInject(t, []byte(in), "--values", writeValues(t, sidecarDecides+"warmup: {tables: [t]}\n"))
	if code != 1 || out != "" {
		t.Fatalf("exit %d, stdout %d bytes, stderr %q; want exit 1 and nothing on stdout", code, len(out), stderr)
	}
	for _, want := range []string{"StatefulSet b", `container "broker"`, `readinessProbe.periodSeconds is "ten"`, "brokerReadiness.decidedBy"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr %q lacks %q", stderr, want)
		}
	}
}

// The umbrella example's broker probe, the official chart's timing, comes out as inject makes the
// official chart's: the same rule on both paths.
func TestUmbrellaBrokerProbeMatchesInject(t *testing.T) {
	for _, by := range []string{"chart", "sidecar"} {
		t.Run(by, func(t *testing.T) {
			values := "brokerReadiness: {decidedBy: " + by + "}\nwarmup: {controllerUrl: http://pinot-controller:9000}\n"
			rendered, _ := renderUmbrella(t, umbrellaValues(t, values))
			umb := probeOf(containerNamed(brokerStatefulSets(rendered)[0], "containers", "broker"), "readinessProbe")
			out := mustInject(t, fixture(t, "default.yaml"), "--values", writeValues(t, values))
			inj := probeOf(containerNamed(brokerStatefulSets(objects(t, out))[0], "containers", "broker"), "readinessProbe")
			if umb == nil || inj == nil {
				t.Fatalf("a broker readinessProbe is missing: umbrella %v, inject %v", umb, inj)
			}
			delete(umb, "httpGet")
			delete(inj, "httpGet")
			if !reflect.DeepEqual(umb, inj) {
				t.Errorf("broker readinessProbe timing differs\numbrella %v\ninject   %v", umb, inj)
			}
			if by == "sidecar" && umb["initialDelaySeconds"] != 0 {
				t.Errorf("umbrella broker readinessProbe %v, want initialDelaySeconds 0", umb)
			}
		})
	}
}
