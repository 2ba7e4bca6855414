package inject

import (
	"bytes"
	"github.com/warmup-sidecar/warmup-sidecar/internal/inject/chartvalues"
	"os"
	"path/filepath"
	"testing"

	yaml "go.yaml.in/yaml/v3"

	"github.com/warmup-sidecar/warmup-sidecar/internal/inject/find"
)

// fixtureDir holds the official Pinot chart's real `helm template` output; the work tree's
// copies in testdata/pinot-helm (from the project's shared fixtures).
const fixtureDir = "../../testdata/pinot-helm"

func fixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(fixtureDir, name))
	if err != nil {
		t.Fatalf("reading fixture: %v", err)
	}
	return b
}

// runInject runs Main as Helm would and returns stdout, stderr and the exit code.
func runInject(t *testing.T, in []byte, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := Main(args, bytes.NewReader(in), &out, &errb)
	return out.String(), errb.String(), code
}

func mustInject(t *testing.T, in []byte, args ...string) string {
	t.Helper()
	out, stderr, code := runInject(t, in, args...)
	if code != 0 {
		t.Fatalf("inject %v: exit %d: %s", args, code, stderr)
	}
	return out
}

// writeValues writes a values file into the test's temp dir.
func writeValues(t *testing.T, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "warmup-values.yaml")
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// k8sObject is a decoded manifest, generic enough to compare whole subtrees.
type k8sObject map[string]any

// objects decodes every non-empty document of a stream.
func objects(t *testing.T, stream string) []k8sObject {
	t.Helper()
	var objs []k8sObject
	for _, d := range find.SplitStream([]byte(stream)) {
		// Into a plain map: yaml.v3 would give nested maps the named type otherwise.
		var o map[string]any
		if err := yaml.Unmarshal([]byte(d.Body), &o); err != nil {
			t.Fatalf("output is not YAML: %v\n%s", err, d.Body)
		}
		if o != nil {
			objs = append(objs, k8sObject(o))
		}
	}
	return objs
}

func (o k8sObject) get(keys ...string) any { return chartvalues.Lookup(o, keys...) }

func (o k8sObject) id() string {
	name, _ := o.get("metadata", "name").(string)
	kind, _ := o.get("kind").(string)
	return kind + "/" + name
}

// brokerStatefulSets returns the StatefulSets labelled component=broker.
func brokerStatefulSets(objs []k8sObject) []k8sObject {
	var out []k8sObject
	for _, o := range objs {
		if o.get("kind") == "StatefulSet" && o.get("spec", "template", "metadata", "labels", "component") == "broker" {
			out = append(out, o)
		}
	}
	return out
}

// containerNamed finds a container by name in the pod's containers or initContainers list.
func containerNamed(sts k8sObject, list, name string) map[string]any {
	items, _ := sts.get("spec", "template", "spec", list).([]any)
	for _, c := range items {
		if m, ok := c.(map[string]any); ok && m["name"] == name {
			return m
		}
	}
	return nil
}

func countNamed(sts k8sObject, name string) int {
	n := 0
	for _, list := range []string{"containers", "initContainers"} {
		items, _ := sts.get("spec", "template", "spec", list).([]any)
		for _, c := range items {
			if m, ok := c.(map[string]any); ok && m["name"] == name {
				n++
			}
		}
	}
	return n
}

// envOf maps a container's env names to values.
func envOf(c map[string]any) map[string]string {
	out := map[string]string{}
	items, _ := c["env"].([]any)
	for _, e := range items {
		m := e.(map[string]any)
		v, _ := m["value"].(string)
		out[m["name"].(string)] = v
	}
	return out
}
