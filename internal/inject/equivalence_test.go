package inject

import (
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	yaml "go.yaml.in/yaml/v3"
	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/engine"

	"github.com/warmup-sidecar/warmup-sidecar/internal/inject/chartvalues"
)

// The two delivery paths must produce the same container. The example umbrella chart
// (charts/examples/pinot-broker-with-warmup) includes the named templates from its own broker
// StatefulSet, as a fork of the official chart would; inject splices the same templates into
// the official chart's output. For each variant below:
//   - TestUmbrellaPathMatchesInject renders the umbrella chart with Helm's Go library: it proves
//     the include path and the post-renderer path agree.
//   - TestHelmCLIMatchesInject renders it with the `helm` binary on PATH (skipped without one;
//     scripts/check-packaging.sh installs it): it proves the helm CLI renders what inject adds.
// Neither proves the container runs; e2e does that.

const (
	umbrellaDir = "../../charts/examples/pinot-broker-with-warmup"
	chartDir    = "../../charts/pinot-broker-warmup"
)

var equivalenceVariants = map[string]string{
	"defaults": `
warmup:
  controllerUrl: http://pinot-controller:9000
`,
	// Subtest names end up in temp paths, and helm splits --values at commas: keep them plain.
	"native-sidecar": `
nativeSidecar: true
warmup:
  controllerUrl: http://pinot-controller:9000
`,
	"auth": `
auth:
  existingSecret: pinot-warmup-auth
  key: header
  mountPath: /var/run/warmup/
warmup:
  controllerUrl: http://pinot-controller:9000
`,
	"loopback-listener": `
loopbackListener:
  enabled: true
  name: probes
  port: 8097
warmup:
  controllerUrl: http://pinot-controller:9000
`,
	"custom-env": `
warmup:
  controllerUrl: http://pinot-controller:9000
  tables: [airlineStats]
extraEnv:
  - name: GOMEMLIMIT
    value: 100MiB
  - name: NOTE
    value: "two\nlines: 'quoted' \"too\""
  - name: POD_IP
    valueFrom:
      fieldRef: {fieldPath: status.podIP}
`,
	"resources": `
warmup:
  controllerUrl: http://pinot-controller:9000
  queries: ["SELECT COUNT(*) FROM airlineStats"]
resources:
  requests: {cpu: 0.25, memory: 64Mi}
  limits: {cpu: 1, memory: 256Mi}
readinessProbe: {periodSeconds: 2}
`,
	"aot-cache-with-auth": `
auth:
  existingSecret: pinot-warmup-auth
  key: header
brokerJvm:
  aotCache:
    enabled: true
    mode: train
    key: apachepinot-pinot-latest
    volume:
      persistentVolumeClaim: {claimName: pinot-broker-aot}
warmup:
  controllerUrl: http://pinot-controller:9000
`,
	// The sidecar's own readinessProbe sampled every 2 s, its failureThreshold scaled (3 s x 2 kept as 2 s x 3).
	"sidecar-decides-readiness": `
brokerReadiness:
  decidedBy: sidecar
  periodSeconds: 2
readinessProbe: {periodSeconds: 3}
warmup:
  controllerUrl: http://pinot-controller:9000
`,
	"native-auth-listener-tuned": `
nativeSidecar: true
auth:
  existingSecret: pinot-warmup-auth
  key: header
loopbackListener:
  enabled: true
  port: 8097
warmup:
  controllerUrl: http://pinot-controller.pinot.svc:9000
  tables: [airlineStats]
  minIterations: 2000
  budget: 1m
  concurrency: 8
resources:
  requests: {cpu: 100m, memory: 64Mi}
extraEnv:
  - name: GOMEMLIMIT
    value: 100MiB
`,
}

// podParts is what both paths put into the broker pod.
type podParts struct {
	Containers, InitContainers, Volumes []any
}

// sidecarParts picks the sidecar's entries (everything not the broker's own) out of a broker
// StatefulSet.
func sidecarParts(sts k8sObject) podParts {
	pick := func(list string, skip ...string) []any {
		var out []any
		items, _ := sts.get("spec", "template", "spec", list).([]any)
	next:
		for _, it := range items {
			for _, s := range skip {
				if it.(map[string]any)["name"] == s {
					continue next
				}
			}
			out = append(out, it)
		}
		return out
	}
	return podParts{
		Containers:     pick("containers", "broker"),
		InitContainers: pick("initContainers", "wait-zk"),
		Volumes:        pick("volumes", "config"),
	}
}

func injectedParts(t *testing.T, values string) podParts {
	t.Helper()
	// At the umbrella's Kubernetes version: native-sidecar mode needs one.
	out := mustInject(t, fixture(t, "default.yaml"), "--values", writeValues(t, values), "--kube-version", "v1.29.0")
	return sidecarParts(brokerStatefulSets(objects(t, out))[0])
}

// umbrellaValues nests the sidecar values under the dependency's name, enabled as inject does.
func umbrellaValues(t *testing.T, values string) map[string]any {
	t.Helper()
	var sub map[string]any
	if err := yaml.Unmarshal([]byte(values), &sub); err != nil {
		t.Fatal(err)
	}
	sub["enabled"] = true
	sub = chartvalues.Merge(sub, map[string]any{"warmup": map[string]any{"brokerPort": 8099}})
	return map[string]any{"pinot-broker-warmup": sub}
}

// renderUmbrella renders the example umbrella chart with this chart as its dependency through
// Helm's library, at Kubernetes 1.29, and returns its statefulset.yaml's objects and the
// umbrella's own default values.
func renderUmbrella(t *testing.T, values map[string]any) ([]k8sObject, map[string]any) {
	t.Helper()
	out, parent, err := renderUmbrellaAt(t, values, "v1.29.0")
	if err != nil {
		t.Fatal(err)
	}
	return objects(t, out["pinot-broker-with-warmup/templates/statefulset.yaml"]), parent.Values
}

// renderUmbrellaAt renders the example umbrella chart through Helm's library at a Kubernetes
// version: every template's output, the chart, and the render's error (a template's fail).
func renderUmbrellaAt(t *testing.T, values map[string]any, kubeVersion string) (map[string]string, *chart.Chart, error) {
	t.Helper()
	parent, err := loader.Load(umbrellaDir)
	if err != nil {
		t.Fatal(err)
	}
	sub, err := loader.Load(chartDir)
	if err != nil {
		t.Fatal(err)
	}
	parent.AddDependency(sub)
	caps := chartutil.DefaultCapabilities.Copy()
	kv, err := chartutil.ParseKubeVersion(kubeVersion)
	if err != nil {
		t.Fatal(err)
	}
	caps.KubeVersion = *kv
	top, err := chartutil.ToRenderValues(parent, values, chartutil.ReleaseOptions{Name: "pinot", Namespace: "pinot"}, caps)
	if err != nil {
		t.Fatal(err)
	}
	out, err := engine.Render(parent, top)
	return out, parent, err
}

func TestUmbrellaPathMatchesInject(t *testing.T) {
	for name, values := range equivalenceVariants {
		t.Run(name, func(t *testing.T) {
			rendered, _ := renderUmbrella(t, umbrellaValues(t, values))
			got := sidecarParts(brokerStatefulSets(rendered)[0])
			if want := injectedParts(t, values); !reflect.DeepEqual(got, want) {
				t.Errorf("umbrella render and inject differ\numbrella: %#v\ninject:   %#v", got, want)
			}
			// The loopback listener lines, when any, are the same too.
			injected := objects(t, mustInject(t, fixture(t, "default.yaml"), "--values", writeValues(t, values), "--kube-version", "v1.29.0"))
			if got, want := listenerLines(rendered), listenerLines(injected); !reflect.DeepEqual(got, want) {
				t.Errorf("broker config listener lines differ\numbrella: %q\ninject:   %q", got, want)
			}
		})
	}
}

func TestHelmCLIMatchesInject(t *testing.T) {
	helm, err := exec.LookPath("helm")
	if err != nil {
		t.Skip("helm not on PATH (scripts/install-tools.sh installs it); TestUmbrellaPathMatchesInject still compares through Helm's library")
	}
	dir := t.TempDir()
	copyDir(t, umbrellaDir, dir)
	copyDir(t, chartDir, filepath.Join(dir, "charts", "pinot-broker-warmup"))
	for name, values := range equivalenceVariants {
		t.Run(name, func(t *testing.T) {
			b, err := yaml.Marshal(umbrellaValues(t, values))
			if err != nil {
				t.Fatal(err)
			}
			vf := writeValues(t, string(b))
			cmd := exec.Command(helm, "template", "pinot", dir, "--namespace", "pinot", "--kube-version", "1.29.0",
				"--values", vf, "--show-only", "templates/statefulset.yaml")
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("helm template: %v\n%s", err, stderrOf(err))
			}
			got := sidecarParts(brokerStatefulSets(objects(t, string(out)))[0])
			if want := injectedParts(t, values); !reflect.DeepEqual(got, want) {
				t.Errorf("helm template and inject differ\nhelm:   %#v\ninject: %#v", got, want)
			}
		})
	}
}

// listenerLines are the access.protocols lines of the broker config ConfigMap(s).
func listenerLines(objs []k8sObject) []string {
	var out []string
	for _, o := range objs {
		conf, _ := o.get("data", "pinot-broker.conf").(string)
		for _, l := range strings.Split(conf, "\n") {
			if strings.HasPrefix(l, "pinot.broker.client.access.protocols") {
				out = append(out, l)
			}
		}
	}
	return out
}

func stderrOf(err error) string {
	if ee, ok := err.(*exec.ExitError); ok {
		return string(ee.Stderr)
	}
	return ""
}

func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, 0o644)
	})
	if err != nil {
		t.Fatalf("copying %s: %v", src, err)
	}
}
