package inject

import (
	"reflect"
	"strings"
	"testing"

	"helm.sh/helm/v3/pkg/chart"

	"github.com/warmup-sidecar/warmup-sidecar/internal/inject/charttest"
	"github.com/warmup-sidecar/warmup-sidecar/internal/inject/chartvalues"
)

// gatedReadiness is the official chart's broker readinessProbe timing (60 s, 10 s x 10) gated.
var gatedReadiness = map[string]any{"initialDelaySeconds": 0, "periodSeconds": 1, "failureThreshold": 100}

// brokerProbeTiming is a broker readinessProbe's timing fields.
func brokerProbeTiming(t *testing.T, stream string) map[string]any {
	t.Helper()
	p := probeOf(containerNamed(brokerStatefulSets(objects(t, stream))[0], "containers", "broker"), "readinessProbe")
	out := map[string]any{}
	for _, k := range []string{"initialDelaySeconds", "periodSeconds", "failureThreshold"} {
		out[k] = p[k]
	}
	return out
}

// sidecarProbePeriod is the sidecar's readinessProbe periodSeconds in the first broker StatefulSet.
func sidecarProbePeriod(t *testing.T, stream string) any {
	t.Helper()
	return probeOf(containerNamed(brokerStatefulSets(objects(t, stream))[0], "containers", sidecar), "readinessProbe")["periodSeconds"]
}

// brokerReadiness.decidedBy auto, the default, decides per broker StatefulSet from its container's
// CPU limit as configured and brokerCpuBoost, says so on stderr, and the sidecar's own probe
// follows; chart and sidecar set explicitly are honoured whatever the broker.
func TestAutoDecidesFromTheBrokersCPU(t *testing.T) {
	for _, tc := range []struct {
		name, fixture, values string
		args                  []string
		gated                 bool
		says                  string // on stderr; "" for no auto line
	}{
		{"no CPU limit, defaults", "default.yaml", "{}\n", nil, true, "brokerReadiness.decidedBy auto: sidecar (the broker has no CPU limit)"},
		{"a CPU limit, defaults", "cpu-limits.yaml", "{}\n", nil, false, "brokerReadiness.decidedBy auto: chart (the broker has a CPU limit, 2, and brokerCpuBoost is off)"},
		{"a CPU limit, boosted", "cpu-limits.yaml", boostValues("  cpu: {limit: \"4\"}\n"), []string{"--kube-version", "1.34.0"}, true, "brokerReadiness.decidedBy auto: sidecar (brokerCpuBoost is on)"},
		{"no CPU limit, chart set", "default.yaml", "brokerReadiness: {decidedBy: chart}\n", nil, false, ""},
		{"a CPU limit, sidecar set", "cpu-limits.yaml", "brokerReadiness: {decidedBy: sidecar}\n", nil, true, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"--values", writeValues(t, tc.values)}, tc.args...)
			out, stderr, code := runInject(t, fixture(t, tc.fixture), args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			want, side := brokerProbeTiming(t, string(fixture(t, tc.fixture))), any(5)
			if tc.gated {
				want, side = gatedReadiness, 1
			}
			if got := brokerProbeTiming(t, out); !reflect.DeepEqual(got, want) {
				t.Errorf("broker readinessProbe timing %v, want %v", got, want)
			}
			if got := sidecarProbePeriod(t, out); got != side {
				t.Errorf("sidecar readinessProbe periodSeconds %v, want %v", got, side)
			}
			if tc.says != "" && !strings.Contains(stderr, tc.says) {
				t.Errorf("stderr does not say %q:\n%s", tc.says, stderr)
			}
			if tc.says == "" && strings.Contains(stderr, "decidedBy auto") {
				t.Errorf("stderr speaks of auto with decidedBy set:\n%s", stderr)
			}
		})
	}
}

// On a broker with a CPU limit, auto is chart: the output is decidedBy chart's byte for byte.
func TestAutoOnACPULimitIsTheChartsOutput(t *testing.T) {
	auto := mustInject(t, fixture(t, "cpu-limits.yaml"))
	chart := mustInject(t, fixture(t, "cpu-limits.yaml"), "--values", writeValues(t, "brokerReadiness: {decidedBy: chart}\n"))
	if auto != chart {
		t.Error("auto on a broker with a CPU limit differs from decidedBy: chart")
	}
}

// The values route on the official chart as it ships (no CPU limit): the broker's readiness probe
// is restated, started at once (1 s: the least the official template renders) every second; with a
// CPU limit it is left to the chart.
func TestValuesRouteAutoGatesTheOfficialBroker(t *testing.T) {
	for _, tc := range []struct {
		name, pinot string
		want        map[string]any
	}{
		{"as the chart ships", "", map[string]any{"initialDelaySeconds": 1, "periodSeconds": 1, "failureThreshold": 100, "successThreshold": 1, "timeoutSeconds": 10}},
		{"a CPU limit", "broker:\n  resources: {limits: {cpu: \"2\"}}\n", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			overlay, _ := runValuesRoute(t, renderOfficial(t, yamlMap(t, tc.pinot)), "{}\n")
			got, _ := chartvalues.Lookup(yamlMap(t, overlay), "broker", "probes", "readiness").(map[string]any)
			if tc.want == nil && got != nil || tc.want != nil && !reflect.DeepEqual(got, tc.want) {
				t.Errorf("broker.probes.readiness %v, want %v\n%s", got, tc.want, overlay)
			}
		})
	}
}

// The umbrella example gives its broker's resources to the chart: auto decides there as inject
// does on the official chart's broker with the same resources, for the broker's probe and the
// sidecar's own.
func TestUmbrellaAutoMatchesInject(t *testing.T) {
	for _, tc := range []struct {
		name, fixture, resources string
		gated                    bool
	}{
		{"no CPU limit", "default.yaml", "{requests: {memory: 1.25Gi}}", true},
		{"a CPU limit", "cpu-limits.yaml", "{requests: {cpu: \"1\", memory: 1.25Gi}, limits: {cpu: \"2\"}}", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			values := umbrellaValues(t, "warmup: {controllerUrl: http://pinot-controller:9000}\n")
			values["broker"] = map[string]any{"resources": yamlMap(t, tc.resources)}
			rendered, _ := renderUmbrella(t, values)
			umb := brokerStatefulSets(rendered)[0]
			inj := brokerStatefulSets(objects(t, mustInject(t, fixture(t, tc.fixture), "--kube-version", "v1.29.0")))[0]
			for _, c := range []string{"broker", sidecar} {
				u, i := probeOf(containerNamed(umb, "containers", c), "readinessProbe"), probeOf(containerNamed(inj, "containers", c), "readinessProbe")
				delete(u, "httpGet")
				delete(i, "httpGet")
				if u == nil || !reflect.DeepEqual(u, i) {
					t.Errorf("%s readinessProbe\numbrella %v\ninject   %v", c, u, i)
				}
			}
			if got := brokerProbeTiming(t, mustInject(t, fixture(t, tc.fixture))); reflect.DeepEqual(got, gatedReadiness) != tc.gated {
				t.Errorf("inject's broker readinessProbe timing %v: gated %v, want %v", got, !tc.gated, tc.gated)
			}
		})
	}
}

// An umbrella chart that does not give the broker's resources cannot resolve auto: the render
// fails naming what to add, rather than choosing for the operator; chart or sidecar set needs none.
func TestUmbrellaAutoWithoutTheBrokerResourcesFails(t *testing.T) {
	c := charttest.Load(t, chartDir,
		&chart.File{Name: "templates/probe.yaml", Data: []byte(`{{ include "pinot-broker-warmup.brokerReadinessProbe" (dict "Values" .Values "probe" (dict "periodSeconds" 10)) }}`)},
		&chart.File{Name: "templates/containers.yaml", Data: []byte(`{{ include "pinot-broker-warmup.containers" (dict "Values" .Values) }}`)})
	for _, tc := range []struct{ by, want string }{
		{"auto", `brokerReadiness.decidedBy is auto, which decides from the broker container's resources`},
		{"chart", ""},
		{"sidecar", ""},
	} {
		t.Run(tc.by, func(t *testing.T) {
			values := map[string]any{"enabled": true, "brokerReadiness": map[string]any{"decidedBy": tc.by},
				"warmup": map[string]any{"controllerUrl": "http://pinot-controller:9000"}}
			_, err := charttest.Render(c, values)
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("render failed: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), `"BrokerResources"`)):
				t.Errorf("render error %v, want one naming %q and \"BrokerResources\"", err, tc.want)
			}
		})
	}
}
