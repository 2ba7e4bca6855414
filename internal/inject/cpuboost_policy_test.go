package inject

import (
	"reflect"
	"strings"
	"testing"

	yaml "go.yaml.in/yaml/v3"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/engine"

	"github.com/warmup-sidecar/warmup-sidecar/internal/inject/find"
)

// policyName is the admission policy's name for the official chart's broker: cluster-scoped, so
// named by namespace and StatefulSet.
const policyName = "pinot.pinot-broker-warmup-cpu-boost"

// boostedObjects injects the boost (request 1 → 2, limit 2 → 4) into the official chart's broker.
func boostedObjects(t *testing.T) []k8sObject {
	t.Helper()
	values := writeValues(t, boostValues("  cpu:\n    request: \"2\"\n    limit: \"4\"\n"))
	return objects(t, mustInject(t, fixture(t, "cpu-limits.yaml"), "--values", values, boostKube))
}

// The resize right is narrowed by a ValidatingAdmissionPolicy beside the Role: held to requests
// of the boost's ServiceAccount on the StatefulSet's pods, in the release namespace, it denies
// (not warns) a resize of another pod than the caller's token is bound to, of anything but the
// broker container's CPU, and of that CPU outside the broker's own and the boost. What the
// expressions do is checked on a real API server (e2e/kube/boostapi); here, that they are there
// with the StatefulSet's names and bounds.
func TestCPUBoostPolicyConfinesTheResizeToTheCallersOwnPod(t *testing.T) {
	objs := boostedObjects(t)
	vaps, binds := objectsOfKind(objs, "ValidatingAdmissionPolicy"), objectsOfKind(objs, "ValidatingAdmissionPolicyBinding")
	if len(vaps) != 1 || len(binds) != 1 {
		t.Fatalf("%d ValidatingAdmissionPolicies and %d bindings, want one each", len(vaps), len(binds))
	}
	vap, bind := vaps[0], binds[0]
	labels := objectsOfKind(objs, "Role")[0].get("metadata", "labels")
	for _, o := range []k8sObject{vap, bind} {
		if o.get("apiVersion") != "admissionregistration.k8s.io/v1" || o.get("metadata", "name") != policyName ||
			o.get("metadata", "namespace") != nil || !reflect.DeepEqual(o.get("metadata", "labels"), labels) {
			t.Errorf("%s: apiVersion %v, metadata %v; want v1, %s, cluster-scoped, labelled like the Role", o.id(), o.get("apiVersion"), o.get("metadata"), policyName)
		}
	}
	if f := vap.get("spec", "failurePolicy"); f != "Fail" {
		t.Errorf("failurePolicy %v, want Fail: an unevaluable rule must not let a resize through", f)
	}
	wantRules := []any{map[string]any{"apiGroups": []any{""}, "apiVersions": []any{"v1"}, "operations": []any{"UPDATE"}, "resources": []any{"pods/resize"}}}
	if r := vap.get("spec", "matchConstraints", "resourceRules"); !reflect.DeepEqual(r, wantRules) {
		t.Errorf("resourceRules %v, want %v", r, wantRules)
	}
	conds := expressions(vap.get("spec", "matchConditions"))
	if !containsAll(conds, "request.userInfo.username == 'system:serviceaccount:pinot:pinot-broker-warmup'", `r'^pinot-broker-[0-9]+$'`) {
		t.Errorf("matchConditions %q: want the boost's ServiceAccount and the StatefulSet's pods", conds)
	}
	vals, _ := vap.get("spec", "validations").([]any)
	var exprs, messages []string
	for _, v := range vals {
		m := v.(map[string]any)
		exprs = append(exprs, m["expression"].(string))
		messages = append(messages, m["message"].(string))
		if m["reason"] != "Forbidden" {
			t.Errorf("validation %q: reason %v, want Forbidden", m["message"], m["reason"])
		}
		// The sidecar tells an RBAC denial from an admission one by RBAC's wording.
		if msg := m["message"].(string); strings.Contains(msg, "cannot ") || strings.Contains(msg, "resource ") {
			t.Errorf("message %q reads like RBAC's denial", msg)
		}
	}
	all := strings.Join(append(exprs, expressions(vap.get("spec", "variables"))...), "\n")
	for _, w := range []string{
		"authentication.kubernetes.io/pod-name", "object.metadata.name", // the caller's own pod
		"c.name == 'broker'", // the broker container
		"quantity(variables.requests.cpu).compareTo(quantity('1')) >= 0", // request: the broker's own …
		"quantity(variables.requests.cpu).compareTo(quantity('2')) <= 0", // … to the boost
		"quantity(variables.limits.cpu).compareTo(quantity('2')) >= 0",   // limit: the broker's own …
		"quantity(variables.limits.cpu).compareTo(quantity('4')) <= 0",   // … to the boost
		"k == 'cpu' ||",                              // memory and the rest kept
		"initContainers", "oldObject.spec.resources", // nothing else resized
	} {
		if !strings.Contains(all, w) {
			t.Errorf("the policy's expressions lack %q:\n%s", w, all)
		}
	}
	for _, w := range []string{"its own pod", "only the broker container's CPU", "memory", "between 1 (its own) and 2 (the boost)", "between 2 (its own) and 4 (the boost)"} {
		if !containsAll(messages, w) {
			t.Errorf("no validation message says %q: %q", w, messages)
		}
	}
	if p := bind.get("spec", "policyName"); p != policyName {
		t.Errorf("binding's policyName %v", p)
	}
	if a := bind.get("spec", "validationActions"); !reflect.DeepEqual(a, []any{"Deny"}) {
		t.Errorf("validationActions %v, want [Deny]", a)
	}
	if ns := bind.get("spec", "matchResources", "namespaceSelector", "matchLabels"); !reflect.DeepEqual(ns, map[string]any{"kubernetes.io/metadata.name": "pinot"}) {
		t.Errorf("binding's namespaceSelector %v, want the release namespace", ns)
	}
}

// A broker without a CPU limit, its request boosted: the policy keeps it without one.
func TestCPUBoostPolicyKeepsABrokerWithoutALimitSo(t *testing.T) {
	in := withBrokerCPU(t, "cpu-limits.yaml", cpu("500m", ""), nil)
	out := mustInject(t, in, "--values", writeValues(t, boostValues("  cpu:\n    request: \"1500m\"\n")), boostKube)
	vaps := objectsOfKind(objects(t, out), "ValidatingAdmissionPolicy")
	if len(vaps) != 1 {
		t.Fatalf("%d ValidatingAdmissionPolicies, want 1", len(vaps))
	}
	all := strings.Join(expressions(vaps[0].get("spec", "validations")), "\n")
	for _, w := range []string{"!('cpu' in variables.limits)", "compareTo(quantity('500m')) >= 0", "compareTo(quantity('1500m')) <= 0"} {
		if !strings.Contains(all, w) {
			t.Errorf("the policy lacks %q:\n%s", w, all)
		}
	}
}

// expressions are the expression fields of a list of matchConditions, variables or validations.
func expressions(v any) []string {
	var out []string
	items, _ := v.([]any)
	for _, it := range items {
		if m, ok := it.(map[string]any); ok {
			e, _ := m["expression"].(string)
			out = append(out, e)
		}
	}
	return out
}

// containsAll: every want is in one of the texts.
func containsAll(texts []string, wants ...string) bool {
	for _, w := range wants {
		found := false
		for _, s := range texts {
			found = found || strings.Contains(s, w)
		}
		if !found {
			return false
		}
	}
	return true
}

// The boost needs in-place pod resize (Kubernetes 1.33, on by default), which a post-renderer
// cannot ask the cluster about: without --kube-version inject stops naming the flag, as for
// nativeSidecar; below 1.33 the chart refuses naming the version.
func TestCPUBoostNeedsKubernetes133(t *testing.T) {
	in := fixture(t, "cpu-limits.yaml")
	values := writeValues(t, boostValues("  cpu:\n    limit: \"4\"\n"))
	for _, c := range []struct {
		args []string
		want []string
	}{
		{nil, []string{"brokerCpuBoost", "Kubernetes >= 1.33", "--kube-version", "--post-renderer-args", "brokerCpuBoost.enabled: false"}},
		{[]string{"--kube-version", "v1.32.9"}, []string{"brokerCpuBoost needs Kubernetes >= 1.33", "v1.32.9"}},
	} {
		out, stderr, code := runInject(t, in, append([]string{"--values", values}, c.args...)...)
		if code != exitUsage || out != "" {
			t.Errorf("%v: exit %d, %d bytes out; want 2 and nothing: %s", c.args, code, len(out), stderr)
		}
		for _, w := range c.want {
			if !strings.Contains(stderr, w) {
				t.Errorf("%v: stderr lacks %q:\n%s", c.args, w, stderr)
			}
		}
	}
	mustInject(t, in, "--values", values, "--kube-version", "v1.33.0")
}

// The namespace's default ServiceAccount is every pod's that names none: the resize right is
// never bound to it.
func TestCPUBoostRefusesTheDefaultServiceAccount(t *testing.T) {
	noSA := withBrokerCPU(t, "cpu-limits.yaml", cpu("1", "2"), func(pod *yaml.Node) {
		for i := 0; i < len(pod.Content); i += 2 {
			if pod.Content[i].Value == "serviceAccountName" {
				pod.Content = append(pod.Content[:i], pod.Content[i+2:]...)
				return
			}
		}
		t.Fatal("the fixture's broker pod names no ServiceAccount")
	})
	for _, c := range []struct {
		name   string
		in     []byte
		values string
	}{
		{"named default", fixture(t, "cpu-limits.yaml"), "  serviceAccount:\n    create: false\n    name: default\n"},
		{"the pod's, which is default", noSA, "  serviceAccount:\n    create: false\n"},
		{"created as default", fixture(t, "cpu-limits.yaml"), "  serviceAccount:\n    create: true\n    name: default\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, stderr, code := runInject(t, c.in, "--values", writeValues(t, boostValues("  cpu:\n    limit: \"4\"\n"+c.values)), boostKube)
			if code != exitInput || out != "" {
				t.Fatalf("exit %d, %d bytes out; want 1 and nothing: %s", code, len(out), stderr)
			}
			for _, w := range []string{"StatefulSet pinot-broker", "ServiceAccount default", "every pod", "serviceAccount.create: true"} {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
				}
			}
		})
	}
}

// withChartServiceAccount is the official chart's output with its ServiceAccount pinot given
// what a cloud identity and a private registry put there (nil edit: the ServiceAccount removed,
// as when it is made outside the chart).
func withChartServiceAccount(t *testing.T, edit string) []byte {
	t.Helper()
	docs, err := find.ParseStream(fixture(t, "cpu-limits.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var all []find.Document
	for _, d := range docs {
		if d.Obj.Kind == "ServiceAccount" && d.Obj.Metadata.Name == "pinot" {
			if edit == "" {
				continue
			}
			d.Body = strings.TrimRight(d.Body, "\n") + "\n" + edit
		}
		all = append(all, d.Document)
	}
	return find.JoinStream(all)
}

const chartSAIdentity = `imagePullSecrets:
  - name: private-registry
`

// The broker pods leave the chart's ServiceAccount for the boost's: its annotations (a cloud
// workload identity) and imagePullSecrets go with them; values given for the boost's win.
func TestCPUBoostCarriesTheChartServiceAccountsIdentity(t *testing.T) {
	in := []byte(strings.Replace(string(withChartServiceAccount(t, chartSAIdentity)), "  name: pinot\n  namespace: pinot\n  labels:\n",
		"  name: pinot\n  namespace: pinot\n  annotations:\n    eks.amazonaws.com/role-arn: arn:aws:iam::111122223333:role/pinot\n    iam.gke.io/gcp-service-account: pinot@project.iam.gserviceaccount.com\n  labels:\n", 1))
	values := boostValues("  cpu:\n    limit: \"4\"\n  serviceAccount:\n    annotations:\n      iam.gke.io/gcp-service-account: broker@project.iam.gserviceaccount.com\n")
	out, stderr, code := runInject(t, in, "--values", writeValues(t, values), boostKube)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var sa k8sObject
	for _, o := range objectsOfKind(objects(t, out), "ServiceAccount") {
		if o.get("metadata", "name") == "pinot-broker-warmup" {
			sa = o
		}
	}
	if sa == nil {
		t.Fatal("no ServiceAccount pinot-broker-warmup")
	}
	want := map[string]any{"eks.amazonaws.com/role-arn": "arn:aws:iam::111122223333:role/pinot", "iam.gke.io/gcp-service-account": "broker@project.iam.gserviceaccount.com"}
	if a := sa.get("metadata", "annotations"); !reflect.DeepEqual(a, want) {
		t.Errorf("annotations %v, want %v", a, want)
	}
	if p := sa.get("imagePullSecrets"); !reflect.DeepEqual(p, []any{map[string]any{"name": "private-registry"}}) {
		t.Errorf("imagePullSecrets %v", p)
	}
	if !strings.Contains(stderr, "ServiceAccount pinot's annotations (eks.amazonaws.com/role-arn, iam.gke.io/gcp-service-account) and imagePullSecrets carried over to pinot-broker-warmup") {
		t.Errorf("stderr %q", stderr)
	}
	if again := mustInject(t, []byte(out), "--values", writeValues(t, values), boostKube); again != out {
		t.Error("a second run changed the output")
	}
}

// A ServiceAccount inject cannot see (made outside the chart) may hold an identity it cannot
// carry over: it says so.
func TestCPUBoostWarnsOfAServiceAccountItCannotSee(t *testing.T) {
	out, stderr, code := runInject(t, withChartServiceAccount(t, ""), "--values", writeValues(t, boostValues("  cpu:\n    limit: \"4\"\n")), boostKube)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, w := range []string{"warning", "ServiceAccount pinot is not in the manifests", "brokerCpuBoost.serviceAccount.annotations", "imagePullSecrets"} {
		if !strings.Contains(stderr, w) {
			t.Errorf("stderr lacks %q:\n%s", w, stderr)
		}
	}
	if sa := objectsOfKind(objects(t, out), "ServiceAccount"); len(sa) != 1 || sa[0].get("metadata", "annotations") != nil {
		t.Errorf("ServiceAccounts %v, want the boost's, without annotations", sa)
	}
}

// umbrellaBoostValues: the example umbrella chart's broker with a CPU request 1 and limit 2 (the
// official fixture's), boosted to 4, plus extra values for the dependency.
func umbrellaBoostValues(t *testing.T, extra string) map[string]any {
	t.Helper()
	v := umbrellaValues(t, "warmup:\n  controllerUrl: http://pinot-controller:9000\n"+boostValues("  cpu:\n    limit: \"4\"\n"+extra))
	v["broker"] = map[string]any{"resources": map[string]any{"requests": map[string]any{"cpu": "1", "memory": "1.25Gi"}, "limits": map[string]any{"cpu": "2"}}}
	return v
}

// umbrellaObjectsAt renders the example umbrella chart at a Kubernetes version: its templates'
// objects, or the render error.
func umbrellaObjectsAt(t *testing.T, values map[string]any, kube string) ([]k8sObject, error) {
	t.Helper()
	out, _, err := renderUmbrellaAt(t, values, kube)
	if err != nil {
		return nil, err
	}
	var objs []k8sObject
	for name, text := range out {
		if strings.HasPrefix(name, "pinot-broker-with-warmup/templates/") && strings.HasSuffix(name, ".yaml") {
			objs = append(objs, objects(t, text)...)
		}
	}
	return objs, nil
}

// The umbrella path renders the same policy as inject for the same broker (the umbrella's
// StatefulSet is pinot-broker in pinot too), refuses a cluster below 1.33 and the default
// ServiceAccount, and gives the boost's ServiceAccount the annotations and pull secrets it is
// given.
func TestUmbrellaCPUBoostPolicyGateAndServiceAccount(t *testing.T) {
	objs, err := umbrellaObjectsAt(t, umbrellaBoostValues(t, ""), "v1.34.0")
	if err != nil {
		t.Fatal(err)
	}
	injected := objects(t, mustInject(t, fixture(t, "cpu-limits.yaml"), "--values", writeValues(t, boostValues("  cpu:\n    limit: \"4\"\n")), boostKube))
	for _, kind := range []string{"ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding"} {
		u, i := objectsOfKind(objs, kind), objectsOfKind(injected, kind)
		if len(u) != 1 || len(i) != 1 || !reflect.DeepEqual(u[0], i[0]) {
			t.Errorf("%s: umbrella %v\ninject %v", kind, u, i)
		}
	}

	_, err = umbrellaObjectsAt(t, umbrellaBoostValues(t, ""), "v1.32.0")
	if err == nil || !strings.Contains(err.Error(), "brokerCpuBoost needs Kubernetes >= 1.33") || !strings.Contains(err.Error(), "v1.32.0") {
		t.Errorf("at v1.32.0: %v, want a refusal naming 1.33 and the version", err)
	}
	_, err = umbrellaObjectsAt(t, umbrellaBoostValues(t, "  serviceAccount:\n    create: false\n    name: default\n"), "v1.34.0")
	if err == nil || !strings.Contains(err.Error(), "ServiceAccount default") || !strings.Contains(err.Error(), "every pod") {
		t.Errorf("bound to default: %v, want a refusal", err)
	}
	_, err = umbrellaObjectsAt(t, umbrellaBoostValues(t, "  serviceAccount:\n    create: false\n    name: pinot\n    annotations: {a: b}\n"), "v1.34.0")
	if err == nil || !strings.Contains(err.Error(), "serviceAccount.annotations") {
		t.Errorf("annotations for a ServiceAccount the boost does not create: %v, want a refusal", err)
	}

	objs, err = umbrellaObjectsAt(t, umbrellaBoostValues(t, "  serviceAccount:\n    annotations:\n      azure.workload.identity/client-id: 00000000-0000-0000-0000-000000000000\n    imagePullSecrets:\n      - name: private-registry\n"), "v1.34.0")
	if err != nil {
		t.Fatal(err)
	}
	sa := objectsOfKind(objs, "ServiceAccount")
	if len(sa) != 1 || !reflect.DeepEqual(sa[0].get("metadata", "annotations"), map[string]any{"azure.workload.identity/client-id": "00000000-0000-0000-0000-000000000000"}) ||
		!reflect.DeepEqual(sa[0].get("imagePullSecrets"), []any{map[string]any{"name": "private-registry"}}) {
		t.Errorf("the boost's ServiceAccount %v", sa)
	}
}

// The chart's notes say when the resize right is bound to a ServiceAccount other pods may share.
func TestNotesSayTheServiceAccountIsShared(t *testing.T) {
	notes := func(values map[string]any) string {
		return renderChartFiles(t, values)["pinot-broker-warmup/templates/NOTES.txt"]
	}
	boost := func(create bool) map[string]any {
		return map[string]any{"enabled": true, "warmup": map[string]any{"controllerUrl": "http://pinot-controller:9000"},
			"brokerCpuBoost": map[string]any{"enabled": true, "cpu": map[string]any{"limit": "4"}, "serviceAccount": map[string]any{"create": create, "name": "pinot"}}}
	}
	got := notes(boost(false))
	for _, w := range []string{"ServiceAccount pinot", "every pod", "its own pod", "ValidatingAdmissionPolicy"} {
		if !strings.Contains(got, w) {
			t.Errorf("notes lack %q:\n%s", w, got)
		}
	}
	if got := notes(boost(true)); strings.Contains(got, "every pod") {
		t.Errorf("notes with the boost's own ServiceAccount:\n%s", got)
	}
}

// The values route's companion install renders the boost's objects, the admission policy among
// them, and so refuses a cluster below 1.33 as the other paths do.
func TestValuesRouteCompanionNeedsKubernetes133(t *testing.T) {
	v := routeVariants["boost with the gate"]
	_, companion := runValuesRoute(t, renderOfficial(t, yamlMap(t, v.pinot)), v.warmup)
	c, err := loader.Load(chartDir)
	if err != nil {
		t.Fatal(err)
	}
	for kube, wantErr := range map[string]bool{"v1.32.0": true, "v1.33.0": false} {
		caps := chartutil.DefaultCapabilities.Copy()
		kv, _ := chartutil.ParseKubeVersion(kube)
		caps.KubeVersion = *kv
		top, err := chartutil.ToRenderValues(c, yamlMap(t, companion), chartutil.ReleaseOptions{Name: "pinot-warmup", Namespace: "pinot", IsInstall: true}, caps)
		if err != nil {
			t.Fatal(err)
		}
		out, err := engine.Render(c, top)
		switch {
		case wantErr && (err == nil || !strings.Contains(err.Error(), "brokerCpuBoost needs Kubernetes >= 1.33")):
			t.Errorf("%s: %v, want the version refused", kube, err)
		case !wantErr && (err != nil || len(objectsOfKind(objects(t, out[c.Name()+"/templates/cpuboost.yaml"]), "ValidatingAdmissionPolicy")) != 1):
			t.Errorf("%s: %v, want the admission policy rendered", kube, err)
		}
	}
}
