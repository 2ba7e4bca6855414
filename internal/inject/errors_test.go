package inject

import (
	"fmt"
	"strings"
	"testing"
)

func TestBadValuesFileNamesFileAndField(t *testing.T) {
	for _, tc := range []struct {
		name, values string
		want         []string
	}{
		{"out of range", "warmup:\n  concurrency: 65\n", []string{"/warmup/concurrency", "64"}},
		{"wrong type", "warmup:\n  minIterations: many\n", []string{"/warmup/minIterations", "integer"}},
		{"duration", "warmup:\n  budget: 15\n", []string{"/warmup/budget"}},
		{"zero duration", "warmup:\n  budget: 0s\n", []string{"/warmup/budget"}},
		{"unknown key", "warmup:\n  budgetMs: 15000\n", []string{"budgetMs"}},
		{"bad enum", "warmup:\n  logLevel: trace\n", []string{"/warmup/logLevel"}},
		{"bad exit", "warmup:\n  exit: latency\n", []string{"/warmup/exit"}},
		{"tolerance zero", "warmup:\n  convergeTolerance: 0\n", []string{"/warmup/convergeTolerance"}},
		{"tolerance above 1", "warmup:\n  convergeTolerance: 1.5\n", []string{"/warmup/convergeTolerance"}},
		{"no flat windows", "warmup:\n  convergeWindows: 0\n", []string{"/warmup/convergeWindows"}},
		{"negative probe rate", "warmup:\n  maxProbeRate: -1\n", []string{"/warmup/maxProbeRate"}},
		{"probe rate with a unit", "warmup:\n  maxProbeRate: 20/s\n", []string{"/warmup/maxProbeRate"}},
		{"JVM URL without scheme", "warmup:\n  jvmMetricsUrl: 127.0.0.1:8008\n", []string{"/warmup/jvmMetricsUrl"}},
		{"not yaml", "warmup: [\n", []string{"reading values file"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file := writeValues(t, tc.values)
			out, stderr, code := runInject(t, fixture(t, "default.yaml"), "--values", file)
			if code != 2 {
				t.Fatalf("exit %d, want 2; stderr: %s", code, stderr)
			}
			if out != "" {
				t.Error("nothing may be written to stdout on error")
			}
			for _, w := range append(tc.want, file) {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
				}
			}
		})
	}
}

func TestMissingValuesFile(t *testing.T) {
	_, stderr, code := runInject(t, nil, "--values", "/nonexistent/warmup.yaml")
	if code != 2 || !strings.Contains(stderr, "/nonexistent/warmup.yaml") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}

func TestBadUsage(t *testing.T) {
	for _, args := range [][]string{{"--bogus"}, {"extra-arg"}, {"--kube-version", "not-a-version"}} {
		if _, _, code := runInject(t, nil, args...); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
}

func TestBadManifestsAreErrorsNotPanics(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"not yaml", "apiVersion: v1\nkind: [unclosed\n", "not valid YAML"},
		{"tabs", "a:\n\t- b\n", "not valid YAML"},
		{"scalar", "---\njust some text\n", "not a Kubernetes object"},
		{"list", "---\n- a\n- b\n", "not a Kubernetes object"},
		{"binary", "\x00\x01\x02", "not valid YAML"},
		{"broker without broker container", `apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: b
spec:
  template:
    metadata:
      labels: {app: pinot, component: broker}
    spec:
      containers:
        - name: something-else
`, `no container named "broker"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, stderr, code := runInject(t, []byte(tc.in))
			if code != 1 {
				t.Fatalf("exit %d, want 1; stderr %s", code, stderr)
			}
			if out != "" || !strings.Contains(stderr, tc.want) {
				t.Errorf("stdout %q, stderr %q (want it to mention %q)", out, stderr, tc.want)
			}
		})
	}
}

func TestNoControllerAndNoTablesIsAValuesError(t *testing.T) {
	sts := brokerOnly(8099)
	_, stderr, code := runInject(t, []byte(sts))
	if code != 2 || !strings.Contains(stderr, "warmup.controllerUrl") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
	// Naming the tables instead is enough.
	if _, stderr, code := runInject(t, []byte(sts), "--values", writeValues(t, "warmup:\n  tables: [t]\n")); code != 0 {
		t.Errorf("exit %d: %s", code, stderr)
	}
}

// brokerOnly is a minimal broker StatefulSet whose port is known only from its probe.
func brokerOnly(port int) string {
	return fmt.Sprintf(`apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: b
spec:
  template:
    metadata:
      labels: {app: pinot, component: broker}
    spec:
      containers:
        - name: broker
          readinessProbe:
            httpGet: {path: /health, port: %d}
`, port)
}

// The chart's own checks (its fail calls) run in what inject renders, and reach the operator as
// a values error naming the file.
func TestChartChecksAreValuesErrors(t *testing.T) {
	for _, tc := range []struct {
		name, values string
		args         []string
		want         string
	}{
		{"native sidecar below Kubernetes 1.29", "nativeSidecar: true\n", []string{"--kube-version", "v1.28.9"},
			"nativeSidecar needs Kubernetes >= 1.29 (restartPolicy on initContainers), this cluster is v1.28.9"},
		{"loopback listener on the broker port", "loopbackListener: {enabled: true, port: 8199}\n", nil,
			"loopbackListener.port must differ from warmup.brokerPort"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file := writeValues(t, tc.values)
			out, stderr, code := runInject(t, fixture(t, "customized.yaml"), append([]string{"--values", file}, tc.args...)...)
			if code != 2 || out != "" {
				t.Fatalf("exit %d, stdout %d bytes, want 2 and nothing; stderr: %s", code, len(out), stderr)
			}
			for _, w := range []string{tc.want, file, "StatefulSet pinot-broker"} {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
				}
			}
		})
	}
	// The same values pass where the chart allows them.
	if _, stderr, code := runInject(t, fixture(t, "customized.yaml"), "--values", writeValues(t, "nativeSidecar: true\n"), "--kube-version", "1.29.0"); code != 0 {
		t.Errorf("native sidecar at 1.29: exit %d: %s", code, stderr)
	}
}
