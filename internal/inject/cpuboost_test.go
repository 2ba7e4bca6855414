package inject

import (
	"reflect"
	"strings"
	"testing"

	yaml "go.yaml.in/yaml/v3"

	"github.com/warmup-sidecar/warmup-sidecar/internal/inject/find"
	"github.com/warmup-sidecar/warmup-sidecar/internal/inject/yamlnode"
)

// withBrokerCPU is a fixture with the broker container's resources replaced (nil: removed)
// and, when replicas > 0, its replica count: the official chart's rendering as
// broker.resources would make it.
func withBrokerCPU(t *testing.T, name string, res map[string]map[string]string, edit func(pod *yaml.Node)) []byte {
	t.Helper()
	docs, err := find.ParseStream(fixture(t, name))
	if err != nil {
		t.Fatal(err)
	}
	for i := range docs {
		if docs[i].Obj.Kind != "StatefulSet" || docs[i].Obj.Metadata.Name != "pinot-broker" {
			continue
		}
		root := yamlnode.DocumentRoot(docs[i].Node)
		pod := yamlnode.At(root, "spec", "template", "spec")
		broker := yamlnode.NamedEntry(yamlnode.At(pod, "containers"), "broker")
		r := yamlnode.MappingAt(broker, "resources")
		r.Content = nil
		for _, kind := range []string{"requests", "limits"} {
			if len(res[kind]) == 0 {
				continue
			}
			m := yamlnode.MappingAt(r, kind)
			for k, v := range res[kind] {
				yamlnode.SetScalar(m, k, v, 0)
			}
		}
		if edit != nil {
			edit(pod)
		}
		body, err := find.Encode(docs[i].Node)
		if err != nil {
			t.Fatal(err)
		}
		docs[i].Body = body
	}
	var all []find.Document
	for _, d := range docs {
		all = append(all, d.Document)
	}
	return find.JoinStream(all)
}

func cpu(req, lim string) map[string]map[string]string {
	out := map[string]map[string]string{"requests": {"memory": "1.25Gi"}, "limits": {}}
	if req != "" {
		out["requests"]["cpu"] = req
	}
	if lim != "" {
		out["limits"]["cpu"] = lim
	}
	return out
}

// boostKube is the cluster version the boost's tests give inject: the first with in-place resize on.
const boostKube = "--kube-version=v1.33.0"

func boostValues(extra string) string {
	return "brokerCpuBoost:\n  enabled: true\n" + extra
}

func resourcesOf(c map[string]any) (req, lim map[string]any) {
	r, _ := c["resources"].(map[string]any)
	req, _ = r["requests"].(map[string]any)
	lim, _ = r["limits"].(map[string]any)
	return req, lim
}

func objectsOfKind(objs []k8sObject, kind string) []k8sObject {
	var out []k8sObject
	for _, o := range objs {
		if o.get("kind") == kind {
			out = append(out, o)
		}
	}
	return out
}

// The official chart's broker with a CPU request 1 and limit 2, its limit boosted to 4: the pod
// template carries the boost and the resize policy, the sidecar what to give back and its own
// token, and the stream the ServiceAccount, a Role narrowed to the broker pods' get and resize,
// its binding, and the admission policy confining each resize to the caller's own pod (and its
// binding). Everything else is as the chart rendered it; a second run changes nothing.
func TestCPUBoostOnTheOfficialChart(t *testing.T) {
	in := fixture(t, "cpu-limits.yaml")
	values := writeValues(t, boostValues("  cpu:\n    limit: \"4\"\n"))
	out, stderr, code := runInject(t, in, "--values", values, boostKube)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "CPU boost limit 2 → 4 (given back by ServiceAccount pinot-broker-warmup)") {
		t.Errorf("stderr %q", stderr)
	}
	objs := objects(t, out)
	sts := brokerStatefulSets(objs)[0]
	broker := containerNamed(sts, "containers", "broker")
	req, lim := resourcesOf(broker)
	if req["cpu"] != "1" || lim["cpu"] != "4" || req["memory"] != "1.25Gi" {
		t.Errorf("broker resources %v %v, want request 1 (kept), limit 4, memory kept", req, lim)
	}
	if !reflect.DeepEqual(broker["resizePolicy"], []any{map[string]any{"resourceName": "cpu", "restartPolicy": "NotRequired"}}) {
		t.Errorf("resizePolicy %v", broker["resizePolicy"])
	}
	if sa := sts.get("spec", "template", "spec", "serviceAccountName"); sa != "pinot-broker-warmup" {
		t.Errorf("pod serviceAccountName %v", sa)
	}
	if a := sts.get("spec", "template", "spec", "automountServiceAccountToken"); a != false {
		t.Errorf("automountServiceAccountToken %v, want false: the broker gets no token", a)
	}
	side := containerNamed(sts, "containers", "warmup-sidecar")
	env := envOf(side)
	for k, want := range map[string]string{"WARMUP_CPU_BOOST_ENABLED": "true", "WARMUP_CPU_BOOST_CONTAINER": "broker",
		"WARMUP_CPU_BOOST_TARGET_LIMIT": "2", "WARMUP_CPU_BOOST_MAX_DURATION": "10m", "WARMUP_CPU_BOOST_SETTLE": "60s",
		"WARMUP_KUBE_SERVICE_ACCOUNT_DIR": "/var/run/secrets/kubernetes.io/serviceaccount"} {
		if env[k] != want {
			t.Errorf("sidecar %s=%q, want %q", k, env[k], want)
		}
	}
	if _, ok := env["WARMUP_CPU_BOOST_TARGET_REQUEST"]; ok {
		t.Error("the request is not boosted, so not given back")
	}
	if m := mountsOf(side)["warmup-kube-api"]; m == nil || m["readOnly"] != true || m["mountPath"] != "/var/run/secrets/kubernetes.io/serviceaccount" {
		t.Errorf("sidecar's token mount %v", m)
	}
	if m := mountsOf(broker)["warmup-kube-api"]; m != nil {
		t.Error("the broker container mounts the token")
	}
	if v := volumesOf(sts)["warmup-kube-api"]; v == nil || v["projected"] == nil {
		t.Errorf("token volume %v", v)
	}

	role := objectsOfKind(objs, "Role")
	if len(role) != 1 || role[0].get("metadata", "namespace") != "pinot" {
		t.Fatalf("Roles %v", role)
	}
	wantRules := []any{
		map[string]any{"apiGroups": []any{""}, "resources": []any{"pods"}, "verbs": []any{"get"}, "resourceNames": []any{"pinot-broker-0"}},
		map[string]any{"apiGroups": []any{""}, "resources": []any{"pods/resize"}, "verbs": []any{"patch"}, "resourceNames": []any{"pinot-broker-0"}},
	}
	if !reflect.DeepEqual(role[0].get("rules"), wantRules) {
		t.Errorf("rules %v", role[0].get("rules"))
	}
	rb := objectsOfKind(objs, "RoleBinding")
	if len(rb) != 1 || !reflect.DeepEqual(rb[0].get("subjects"), []any{map[string]any{"kind": "ServiceAccount", "name": "pinot-broker-warmup", "namespace": "pinot"}}) ||
		rb[0].get("roleRef", "name") != role[0].get("metadata", "name") {
		t.Errorf("RoleBinding %v", rb)
	}
	sas := objectsOfKind(objs, "ServiceAccount")
	if len(sas) != 2 || sas[1].get("metadata", "name") != "pinot-broker-warmup" || sas[1].get("automountServiceAccountToken") != false {
		t.Errorf("ServiceAccounts %v, want the chart's and the boost's", sas)
	}

	// Every document but the broker StatefulSet is byte for byte the chart's; the added ones
	// come last.
	inDocs, outDocs := find.SplitStream(in), find.SplitStream([]byte(out))
	if len(outDocs) != len(inDocs)+5 {
		t.Fatalf("%d documents out of %d, want 5 added (ServiceAccount, Role, RoleBinding, ValidatingAdmissionPolicy and its binding)", len(outDocs), len(inDocs))
	}
	for i := range inDocs {
		if inDocs[i] != outDocs[i] && !strings.Contains(inDocs[i].Body, "name: pinot-broker\n  namespace") {
			t.Errorf("document %d changed:\n%s", i, outDocs[i].Body)
		}
	}
	if again := mustInject(t, []byte(out), "--values", values, boostKube); again != out {
		t.Error("a second run changed the output")
	}
}

// A broker with a CPU limit and no request: the API server would default the request to the
// limit, so the boosted pod states the configured limit as its request, and raising the
// limit does not raise the request with it.
func TestCPUBoostLimitOnlyBrokerKeepsItsRequest(t *testing.T) {
	in := withBrokerCPU(t, "cpu-limits.yaml", cpu("", "2"), nil)
	out := mustInject(t, in, "--values", writeValues(t, boostValues("  cpu:\n    limit: \"3500m\"\n")), boostKube)
	sts := brokerStatefulSets(objects(t, out))[0]
	req, lim := resourcesOf(containerNamed(sts, "containers", "broker"))
	if req["cpu"] != "2" || lim["cpu"] != "3500m" {
		t.Errorf("broker CPU request %v limit %v, want 2 and 3500m", req["cpu"], lim["cpu"])
	}
	if env := envOf(containerNamed(sts, "containers", "warmup-sidecar")); env["WARMUP_CPU_BOOST_TARGET_LIMIT"] != "2" {
		t.Errorf("sidecar env %v", env)
	}
}

// Request and limit boosted together; and the request alone where the broker has no limit.
func TestCPUBoostRequestAndLimit(t *testing.T) {
	for _, c := range []struct {
		res             map[string]map[string]string
		values          string
		req, lim        any
		giveReq, giveLm string
	}{
		{cpu("1", "2"), "  cpu:\n    request: \"2\"\n    limit: \"4\"\n", "2", "4", "1", "2"},
		{cpu("500m", ""), "  cpu:\n    request: \"1500m\"\n", "1500m", nil, "500m", ""},
		// Numbers are cores, as Kubernetes reads them.
		{cpu("1", "2"), "  cpu:\n    request: 1.5\n    limit: 3\n", "1.5", "3", "1", "2"},
	} {
		in := withBrokerCPU(t, "cpu-limits.yaml", c.res, nil)
		out := mustInject(t, in, "--values", writeValues(t, boostValues(c.values)), boostKube)
		sts := brokerStatefulSets(objects(t, out))[0]
		req, lim := resourcesOf(containerNamed(sts, "containers", "broker"))
		if req["cpu"] != c.req || lim["cpu"] != c.lim {
			t.Errorf("%s: broker CPU %v / %v, want %v / %v", c.values, req["cpu"], lim["cpu"], c.req, c.lim)
		}
		env := envOf(containerNamed(sts, "containers", "warmup-sidecar"))
		if env["WARMUP_CPU_BOOST_TARGET_REQUEST"] != c.giveReq || env["WARMUP_CPU_BOOST_TARGET_LIMIT"] != c.giveLm {
			t.Errorf("%s: give back request %q limit %q", c.values, env["WARMUP_CPU_BOOST_TARGET_REQUEST"], env["WARMUP_CPU_BOOST_TARGET_LIMIT"])
		}
	}
}

// The Role names as many pods as the StatefulSet has replicas, or maxReplicas (autoscaling).
func TestCPUBoostRoleNamesTheStatefulSetsPods(t *testing.T) {
	in := withBrokerCPU(t, "cpu-limits.yaml", cpu("1", "2"), nil)
	in = []byte(strings.Replace(string(in), "  serviceName: pinot-broker-headless\n  replicas: 1\n", "  serviceName: pinot-broker-headless\n  replicas: 3\n", 1))
	for _, c := range []struct {
		extra string
		want  []any
	}{
		{"", []any{"pinot-broker-0", "pinot-broker-1", "pinot-broker-2"}},
		{"  maxReplicas: 5\n", []any{"pinot-broker-0", "pinot-broker-1", "pinot-broker-2", "pinot-broker-3", "pinot-broker-4"}},
	} {
		out := mustInject(t, in, "--values", writeValues(t, boostValues("  cpu:\n    limit: \"4\"\n"+c.extra)), boostKube)
		role := objectsOfKind(objects(t, out), "Role")[0]
		rules, _ := role.get("rules").([]any)
		for _, r := range rules {
			if got := r.(map[string]any)["resourceNames"]; !reflect.DeepEqual(got, c.want) {
				t.Errorf("%q: resourceNames %v, want %v", c.extra, got, c.want)
			}
		}
	}
}

// serviceAccount.create false: the Role is bound to the pod's own ServiceAccount (the
// official chart's pinot), and the pod's identity and token are left as they are. That
// ServiceAccount is shared, which inject says.
func TestCPUBoostBoundToThePodsServiceAccount(t *testing.T) {
	in := fixture(t, "cpu-limits.yaml")
	out, stderr, code := runInject(t, in, "--values", writeValues(t, boostValues("  cpu:\n    limit: \"4\"\n  serviceAccount:\n    create: false\n")), boostKube)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, w := range []string{"warning", "StatefulSet pinot-broker", "ServiceAccount pinot", "every pod", "its own pod", "serviceAccount.create: true"} {
		if !strings.Contains(stderr, w) {
			t.Errorf("stderr lacks %q:\n%s", w, stderr)
		}
	}
	objs := objects(t, out)
	sts := brokerStatefulSets(objs)[0]
	if sa := sts.get("spec", "template", "spec", "serviceAccountName"); sa != "pinot" {
		t.Errorf("serviceAccountName %v, want the chart's pinot", sa)
	}
	if a := sts.get("spec", "template", "spec", "automountServiceAccountToken"); a != nil {
		t.Errorf("automountServiceAccountToken %v, want it left unset", a)
	}
	if n := len(objectsOfKind(objs, "ServiceAccount")); n != 1 {
		t.Errorf("%d ServiceAccounts, want only the chart's", n)
	}
	rb := objectsOfKind(objs, "RoleBinding")[0]
	if !reflect.DeepEqual(rb.get("subjects"), []any{map[string]any{"kind": "ServiceAccount", "name": "pinot", "namespace": "pinot"}}) {
		t.Errorf("subjects %v", rb.get("subjects"))
	}
}

// Refusals: exit 1, nothing on stdout, the StatefulSet and what to change named.
func TestCPUBoostRefusals(t *testing.T) {
	guaranteedSidecar := "resources:\n  requests: {cpu: 50m, memory: 64Mi}\n  limits: {cpu: 50m, memory: 64Mi}\n"
	guaranteedBroker := map[string]map[string]string{"requests": {"cpu": "2", "memory": "2Gi"}, "limits": {"cpu": "2", "memory": "2048Mi"}}
	for _, c := range []struct {
		name   string
		in     []byte
		values string
		want   []string
	}{
		{"the official chart's default broker", fixture(t, "default.yaml"), boostValues("  cpu:\n    limit: \"4\"\n"),
			[]string{"StatefulSet pinot-broker", "no CPU request or limit", "broker.resources.limits.cpu", "turn brokerCpuBoost off"}},
		{"a limit boost without a limit", withBrokerCPU(t, "cpu-limits.yaml", cpu("1", ""), nil), boostValues("  cpu:\n    limit: \"4\"\n"),
			[]string{"cpu.limit is 4", "no CPU limit to give back to", "boost only brokerCpuBoost.cpu.request"}},
		{"a boost at the limit", fixture(t, "cpu-limits.yaml"), boostValues("  cpu:\n    limit: \"2000m\"\n"),
			[]string{"cpu.limit (2000m) is not above", "CPU limit (2)"}},
		{"a boost below the request", fixture(t, "cpu-limits.yaml"), boostValues("  cpu:\n    request: \"500m\"\n"),
			[]string{"cpu.request (500m) is not above", "CPU request (1)"}},
		{"a request above the limit", fixture(t, "cpu-limits.yaml"), boostValues("  cpu:\n    request: \"3\"\n"),
			[]string{"boosted CPU request (3) would be above the boosted limit (2)"}},
		{"a Guaranteed pod, the limit alone", withBrokerCPU(t, "cpu-limits.yaml", guaranteedBroker, nil), boostValues("  cpu:\n    limit: \"4\"\n") + guaranteedSidecar,
			[]string{"make the pod Burstable where it is Guaranteed", "boost brokerCpuBoost.cpu.request and cpu.limit to the same value"}},
		{"a boost without CPU", fixture(t, "cpu-limits.yaml"), boostValues(""), []string{"set brokerCpuBoost.cpu.limit"}},
		{"no namespace", []byte(strings.ReplaceAll(string(fixture(t, "cpu-limits.yaml")), "  namespace: pinot\n", "")), boostValues("  cpu:\n    limit: \"4\"\n"),
			[]string{"no metadata.namespace"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, stderr, code := runInject(t, c.in, "--values", writeValues(t, c.values), boostKube)
			if code != exitInput || out != "" {
				t.Fatalf("exit %d, %d bytes out; want 1 and nothing: %s", code, len(out), stderr)
			}
			for _, w := range c.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
				}
			}
		})
	}
	// The Guaranteed pod keeps its class when request and limit go up together.
	in := withBrokerCPU(t, "cpu-limits.yaml", guaranteedBroker, nil)
	mustInject(t, in, "--values", writeValues(t, boostValues("  cpu:\n    request: \"4\"\n    limit: \"4\"\n")+guaranteedSidecar), boostKube)
}

// The schema holds the boost's values to their shapes (exit 2).
func TestCPUBoostValuesSchema(t *testing.T) {
	for _, v := range []string{"  cpu:\n    limit: 4Gi\n", "  maxDuration: 0s\n", "  settle: soon\n", "  maxReplicas: -1\n", "  statefulSetName: Bad_Name\n", "  cpus: {}\n"} {
		_, stderr, code := runInject(t, fixture(t, "cpu-limits.yaml"), "--values", writeValues(t, boostValues(v)), boostKube)
		if code != exitUsage || !strings.Contains(stderr, "brokerCpuBoost") {
			t.Errorf("%q: exit %d: %s", v, code, stderr)
		}
	}
}
