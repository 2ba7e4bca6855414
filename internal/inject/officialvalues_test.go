package inject

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	yaml "go.yaml.in/yaml/v3"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/engine"

	"github.com/warmup-sidecar/warmup-sidecar/internal/inject/chartvalues"
	"github.com/warmup-sidecar/warmup-sidecar/internal/inject/find"
)

// The values route against the official chart itself: the chart's .tgz rendered with Helm's
// library, once with the post-renderer's edit, once with the values `warmup-inject values`
// wrote. The broker pod must come out the same, but for what the chart's templates cannot
// render (checked by name below).

const officialTgz = fixtureDir + "/pinot-chart-release-1.5.1.tgz"

// renderOfficial is `helm template pinot <official chart> -n pinot --kube-version 1.34.0` with
// the given values files, in order, as a manifest stream.
func renderOfficial(t *testing.T, values ...map[string]any) []byte {
	t.Helper()
	c, err := loader.Load(officialTgz)
	if err != nil {
		t.Fatalf("loading the official chart: %v", err)
	}
	merged := map[string]any{}
	for _, v := range values {
		merged = chartvalues.Merge(merged, v)
	}
	caps := chartutil.DefaultCapabilities.Copy()
	kv, _ := chartutil.ParseKubeVersion("v1.34.0")
	caps.KubeVersion = *kv
	top, err := chartutil.ToRenderValues(c, merged, chartutil.ReleaseOptions{Name: "pinot", Namespace: "pinot", IsInstall: true}, caps)
	if err != nil {
		t.Fatalf("official chart values: %v", err)
	}
	out, err := engine.Render(c, top)
	if err != nil {
		t.Fatalf("rendering the official chart: %v", err)
	}
	names := make([]string, 0, len(out))
	for n := range out {
		if strings.HasSuffix(n, ".yaml") && strings.TrimSpace(out[n]) != "" {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	var b bytes.Buffer
	for _, n := range names {
		b.WriteString("---\n# Source: " + n + "\n" + out[n] + "\n")
	}
	return b.Bytes()
}

func yamlMap(t *testing.T, text string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := yaml.Unmarshal([]byte(text), &m); err != nil {
		t.Fatalf("not YAML: %v\n%s", err, text)
	}
	if m == nil {
		m = map[string]any{}
	}
	return m
}

// runValuesRoute runs `warmup-inject values` on a stream and returns the overlay and companion.
func runValuesRoute(t *testing.T, stream []byte, warmupValues string) (overlay, companion string) {
	t.Helper()
	comp := filepath.Join(t.TempDir(), "companion.yaml")
	out, stderr, code := runInject(t, stream, "values", "--values", writeValues(t, warmupValues), "--kube-version", "1.34.0", "--companion", comp)
	if code != 0 {
		t.Fatalf("warmup-inject values: exit %d: %s", code, stderr)
	}
	b, err := os.ReadFile(comp)
	if err != nil {
		t.Fatal(err)
	}
	return out, string(b)
}

// routeNormalized is a broker pod as the comparison sees it: JAVA_OPTS as a sorted list of
// options (the values route puts the added options before the chart's tail, the post-renderer
// after it; each option once either way), a broker probe's initialDelaySeconds of 0 as 1 (the
// least the official template renders), and no broker resizePolicy (what the API server
// defaults an omitted one to is the NotRequired the boost writes).
func routeNormalized(t *testing.T, sts k8sObject) map[string]any {
	t.Helper()
	pod, _ := sts.get("spec", "template", "spec").(map[string]any)
	for _, c := range pod["containers"].([]any) {
		c := c.(map[string]any)
		if c["name"] != find.OfficialBrokerContainer {
			continue
		}
		delete(c, "resizePolicy")
		for _, e := range c["env"].([]any) {
			e := e.(map[string]any)
			if v, ok := e["value"].(string); ok && e["name"] == "JAVA_OPTS" {
				opts := strings.Fields(v)
				sort.Strings(opts)
				e["value"] = strings.Join(opts, " ")
			}
		}
		for _, p := range []string{"readinessProbe", "startupProbe"} {
			if pr, ok := c[p].(map[string]any); ok {
				if d, _ := pr["initialDelaySeconds"].(int); d == 0 {
					pr["initialDelaySeconds"] = 1
				}
			}
		}
	}
	return pod
}

// officialBrokers are the StatefulSets with the official chart's broker container (its labels
// follow nameOverride and broker.name).
func officialBrokers(objs []k8sObject) []k8sObject {
	var out []k8sObject
	for _, o := range objs {
		if o.get("kind") == "StatefulSet" && containerNamed(o, "containers", find.OfficialBrokerContainer) != nil {
			out = append(out, o)
		}
	}
	return out
}

func objectByID(objs []k8sObject, id string) k8sObject {
	for _, o := range objs {
		if o.id() == id {
			return o
		}
	}
	return nil
}

var routeVariants = map[string]struct {
	pinot  string // the operator's own values for the official chart
	warmup string // the pinot-broker-warmup values
}{
	"defaults":                   {"", "enabled: true\n"},
	"gate decides, C1, listener": {"", "brokerReadiness: {decidedBy: sidecar}\nbrokerJvm: {c1Only: true}\nloopbackListener: {enabled: true}\n"},
	"boost with the gate": {
		"broker:\n  resources: {requests: {cpu: 300m, memory: 1.25Gi}, limits: {cpu: 300m}}\n",
		"brokerReadiness: {decidedBy: sidecar}\nbrokerCpuBoost: {enabled: true, cpu: {limit: \"1\"}}\n"},
	"AOT cache": {"", aotValues},
	"operator's init containers and mounts kept": {
		"broker:\n  initContainers: [{name: wait-zk, image: busybox, command: [sh, -c, 'true']}]\n" +
			"  persistence:\n    extraVolumes: [{name: scratch, emptyDir: {}}]\n    extraVolumeMounts: [{name: scratch, mountPath: /scratch}]\n",
		"brokerReadiness: {decidedBy: sidecar}\n" + aotValues},
	"JAVA_OPTS in broker.extraEnv": {
		"broker:\n  extraEnv: [{name: LOG4J_CONSOLE_LEVEL, value: info}, {name: JAVA_OPTS, value: -Xmx2g}]\n",
		"brokerJvm: {c1Only: true}\n"},
	"startup probe gated": {"broker:\n  probes: {startupEnabled: true}\n", "brokerReadiness: {decidedBy: sidecar}\n"},
	"auth from a Secret":  {"", "auth: {existingSecret: pinot-broker-auth}\n"},
	"renamed release":     {"fullnameOverride: olap\nnameOverride: olap\nbroker: {name: front}\n", "brokerReadiness: {decidedBy: sidecar}\n"},
}

// TestValuesRouteRendersWhatInjectDoes: for each variant, the official chart rendered with the
// operator's values and the route's values has the broker pod and config the post-renderer
// gives the operator's rendering, and every other object unchanged.
func TestValuesRouteRendersWhatInjectDoes(t *testing.T) {
	for name, v := range routeVariants {
		t.Run(name, func(t *testing.T) {
			pinot := yamlMap(t, v.pinot)
			plain := renderOfficial(t, pinot)
			overlay, _ := runValuesRoute(t, plain, v.warmup)
			routed := objects(t, string(renderOfficial(t, pinot, yamlMap(t, overlay))))

			// The post-renderer with what the route always sets: a native sidecar, the boost
			// bound to the broker pods' own ServiceAccount.
			forced := v.warmup + "nativeSidecar: true\n"
			if strings.Contains(v.warmup, "brokerCpuBoost") {
				forced = strings.Replace(forced, "enabled: true,", "enabled: true, serviceAccount: {create: false},", 1)
			}
			injected := objects(t, mustInject(t, plain, "--values", writeValues(t, forced), "--kube-version", "1.34.0"))

			want, got := officialBrokers(injected), officialBrokers(routed)
			if len(want) != 1 || len(got) != 1 {
				t.Fatalf("broker StatefulSets: post-renderer %d, values route %d; want 1 each", len(want), len(got))
			}
			if w, g := routeNormalized(t, want[0]), routeNormalized(t, got[0]); !reflect.DeepEqual(w, g) {
				wb, _ := yaml.Marshal(w)
				gb, _ := yaml.Marshal(g)
				t.Errorf("broker pod differs\npost-renderer:\n%s\nvalues route:\n%s", wb, gb)
			}
			if countNamed(got[0], find.SidecarContainer) != 1 || containerNamed(got[0], "initContainers", find.SidecarContainer) == nil {
				t.Errorf("the values route's broker pod has no native sidecar %q", find.SidecarContainer)
			}
			// Everything but the broker StatefulSet and its config is the operator's rendering.
			for _, o := range objects(t, string(plain)) {
				if o.id() == want[0].id() {
					continue
				}
				w := objectByID(injected, o.id())
				if g := objectByID(routed, o.id()); !reflect.DeepEqual(map[string]any(w), map[string]any(g)) {
					t.Errorf("%s: the values route renders it otherwise than the post-renderer leaves it", o.id())
				}
			}
		})
	}
}

// TestValuesRouteCompanionRendersTheBoostObjects: the companion values, given to this chart's
// own install in the release's namespace, render the objects the post-renderer appends.
func TestValuesRouteCompanionRendersTheBoostObjects(t *testing.T) {
	v := routeVariants["boost with the gate"]
	plain := renderOfficial(t, yamlMap(t, v.pinot))
	_, companion := runValuesRoute(t, plain, v.warmup)
	forced := strings.Replace(v.warmup, "enabled: true,", "enabled: true, serviceAccount: {create: false},", 1) + "nativeSidecar: true\n"
	injected := objects(t, mustInject(t, plain, "--values", writeValues(t, forced), "--kube-version", "1.34.0"))

	c, err := loader.Load(chartDir) // as `helm install` loads it, without the post-renderer's template
	if err != nil {
		t.Fatal(err)
	}
	caps := chartutil.DefaultCapabilities.Copy()
	kv, _ := chartutil.ParseKubeVersion("v1.34.0")
	caps.KubeVersion = *kv
	top, err := chartutil.ToRenderValues(c, yamlMap(t, companion), chartutil.ReleaseOptions{Name: "pinot-warmup", Namespace: "pinot", IsInstall: true}, caps)
	if err != nil {
		t.Fatalf("companion values: %v", err)
	}
	out, err := engine.Render(c, top)
	if err != nil {
		t.Fatalf("rendering the chart with the companion values: %v", err)
	}
	rendered := objects(t, out[c.Name()+"/templates/cpuboost.yaml"])
	if len(rendered) == 0 {
		t.Fatalf("the companion install renders no brokerCpuBoost objects:\n%s", companion)
	}
	plainIDs := map[string]bool{}
	for _, o := range objects(t, string(plain)) {
		plainIDs[o.id()] = true
	}
	var appended []k8sObject
	for _, o := range injected {
		if !plainIDs[o.id()] {
			appended = append(appended, o)
		}
	}
	if len(appended) != len(rendered) {
		t.Fatalf("the post-renderer appends %d objects, the companion renders %d", len(appended), len(rendered))
	}
	for _, w := range appended {
		if g := objectByID(rendered, w.id()); !reflect.DeepEqual(map[string]any(w), map[string]any(g)) {
			t.Errorf("%s: the companion renders it otherwise than the post-renderer appends it\npost-renderer: %v\ncompanion: %v", w.id(), w, g)
		}
	}
	// Another namespace is refused: the Role must sit beside the broker pods.
	top, _ = chartutil.ToRenderValues(c, yamlMap(t, companion), chartutil.ReleaseOptions{Name: "pinot-warmup", Namespace: "elsewhere", IsInstall: true}, caps)
	if _, err := engine.Render(c, top); err == nil || !strings.Contains(err.Error(), "besideRelease.namespace") {
		t.Errorf("companion in another namespace: err %v, want a refusal naming besideRelease.namespace", err)
	}
}

// TestValuesRouteRefuses: what the official chart's values cannot say is refused, naming why.
func TestValuesRouteRefuses(t *testing.T) {
	plain := renderOfficial(t)
	authed := renderOfficial(t, yamlMap(t, "pinotAuth: {enabled: true, configs: [access.control.principals=admin]}\n"))
	noConfig := []byte(strings.Replace(string(plain), "- name: config\n", "- name: cfg\n", -1))
	for _, tc := range []struct {
		name   string
		in     []byte
		values string
		args   []string
		code   int
		want   string
	}{
		{"a regular container asked for", plain, "nativeSidecar: false\n", nil, exitUsage, "nativeSidecar is false"},
		{"a ServiceAccount of the broker's own", plain, "brokerCpuBoost: {enabled: true, cpu: {limit: \"1\"}, serviceAccount: {create: true}}\n", nil, exitUsage, "serviceAccount.create is true"},
		{"no Kubernetes version", plain, "{}\n", []string{"--kube-version", ""}, exitUsage, "--kube-version is required"},
		{"disabled", plain, "enabled: false\n", nil, exitUsage, "enabled is false"},
		{"the listener beside pinotAuth", authed, "loopbackListener: {enabled: true}\n", nil, exitInput, "pinotAuth"},
		{"not the official chart's broker", noConfig, "{}\n", nil, exitInput, "no volume \"config\""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"values", "--values", writeValues(t, tc.values), "--kube-version", "1.34.0"}, tc.args...)
			_, stderr, code := runInject(t, tc.in, args...)
			if code != tc.code || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, stderr %q; want exit %d naming %q", code, stderr, tc.code, tc.want)
			}
		})
	}
}
