package inject

import (
	"strings"
	"testing"

	"github.com/warmup-sidecar/warmup-sidecar/internal/inject/find"
)

const boostLimit4 = "  cpu:\n    limit: \"4\"\n"

// roleNamed is a Role the operator's chart might render, under the name brokerCpuBoost's Role
// takes for the StatefulSet pinot-broker.
func roleNamed(apiVersion string, labels string) string {
	return "---\n# Source: mine/templates/role.yaml\napiVersion: " + apiVersion + "\nkind: Role\nmetadata:\n  name: pinot-broker-warmup-cpu-boost\n  namespace: pinot\n" + labels + "rules: []\n"
}

// An object of the input under the name of one the boost adds is replaced only when it is this
// chart's (an earlier run's); any other is a refusal naming both, whatever the kind. Another
// API group's kind of the same name is another object.
func TestBoostObjectsReplaceOnlyTheirOwn(t *testing.T) {
	values := writeValues(t, boostValues(boostLimit4))
	base := string(fixture(t, "cpu-limits.yaml"))

	in := base + roleNamed("rbac.authorization.k8s.io/v1", "")
	out, stderr, code := runInject(t, []byte(in), "--values", values, boostKube)
	if code != exitInput || out != "" {
		t.Fatalf("an operator's Role under the boost's name: exit %d, %d bytes out; want 1 and nothing: %s", code, len(out), stderr)
	}
	for _, w := range []string{"Role pinot/pinot-broker-warmup-cpu-boost", "brokerCpuBoost of StatefulSet pinot-broker",
		"# Source: mine/templates/role.yaml", "rename"} {
		if !strings.Contains(stderr, w) {
			t.Errorf("stderr lacks %q:\n%s", w, stderr)
		}
	}

	owned := roleNamed("rbac.authorization.k8s.io/v1", "  labels:\n    app.kubernetes.io/name: pinot-broker-warmup\n")
	out = mustInject(t, []byte(base+owned), "--values", values, boostKube)
	if roles := objectsOfKind(objects(t, out), "Role"); len(roles) != 1 || roles[0].get("rules") == nil || len(roles[0].get("rules").([]any)) != 2 {
		t.Errorf("this chart's Role: want it replaced by the boost's, got %v", roles)
	}

	other := roleNamed("example.com/v1", "")
	out = mustInject(t, []byte(base+other), "--values", values, boostKube)
	if n := len(objectsOfKind(objects(t, out), "Role")); n != 2 {
		t.Errorf("example.com's Role and the boost's: %d Roles, want both", n)
	}
}

// Two brokers whose boosts create one ServiceAccount by name get it once, and a second run
// still equals the first.
func TestBoostServiceAccountSharedByTwoBrokers(t *testing.T) {
	docs := find.SplitStream(fixture(t, "cpu-limits.yaml"))
	var second string
	for _, d := range docs {
		if strings.Contains(d.Body, "kind: StatefulSet") && strings.Contains(d.Body, "\n  name: pinot-broker\n") {
			second = "---\n" + strings.ReplaceAll(d.Body, "name: pinot-broker\n", "name: pinot-broker-b\n")
		}
	}
	if second == "" {
		t.Fatal("fixture: no StatefulSet pinot-broker")
	}
	in := append(fixture(t, "cpu-limits.yaml"), second...)
	values := writeValues(t, boostValues(boostLimit4+"  serviceAccount:\n    create: true\n    name: brokers-boost\n"))
	out := mustInject(t, in, "--values", values, boostKube)
	var boostSAs int
	for _, sa := range objectsOfKind(objects(t, out), "ServiceAccount") {
		if sa.get("metadata", "name") == "brokers-boost" {
			boostSAs++
		}
	}
	if boostSAs != 1 {
		t.Errorf("%d ServiceAccounts brokers-boost, want 1", boostSAs)
	}
	if n := len(objectsOfKind(objects(t, out), "Role")); n != 2 {
		t.Errorf("%d Roles, want one per StatefulSet", n)
	}
	if again := mustInject(t, []byte(out), "--values", values, boostKube); again != out {
		t.Error("a second run changed the output")
	}
}
