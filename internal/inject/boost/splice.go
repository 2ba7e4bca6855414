package boost

import (
	"fmt"
	"strings"

	yaml "go.yaml.in/yaml/v3"

	"github.com/warmup-sidecar/warmup-sidecar/internal/inject/find"
	"github.com/warmup-sidecar/warmup-sidecar/internal/inject/yamlnode"
)

// Splice puts brokerCpuBoost into a broker StatefulSet's pod: the broker container's CPU
// raised, resized in place without a restart (resizePolicy cpu NotRequired, its other entries
// kept), and the pod's ServiceAccount (with no automounted token when it is the boost's own).
// Nothing else of the broker container changes. Reports whether the document changed.
func Splice(stsRoot *yaml.Node, containerName string, boosted Rendered) bool {
	cpu := boosted.CPU
	if cpu.Request == "" && cpu.Limit == "" {
		return false
	}
	pod := yamlnode.At(stsRoot, "spec", "template", "spec")
	broker := yamlnode.NamedEntry(yamlnode.At(pod, "containers"), containerName)
	if pod == nil || broker == nil {
		return false
	}
	res := yamlnode.MappingAt(broker, "resources")
	yamlnode.SetScalar(yamlnode.MappingAt(res, "requests"), "cpu", cpu.Request, yaml.DoubleQuotedStyle)
	if cpu.Limit != "" {
		yamlnode.SetScalar(yamlnode.MappingAt(res, "limits"), "cpu", cpu.Limit, yaml.DoubleQuotedStyle)
	}
	policies := yamlnode.SequenceAt(broker, "resizePolicy")
	var cpuPolicy *yaml.Node
	for _, p := range policies.Content {
		if v := yamlnode.MapValue(p, "resourceName"); v != nil && v.Value == "cpu" {
			cpuPolicy = p
		}
	}
	if cpuPolicy == nil {
		cpuPolicy = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
		policies.Content = append(policies.Content, cpuPolicy)
		yamlnode.SetScalar(cpuPolicy, "resourceName", "cpu", 0)
	}
	yamlnode.SetScalar(cpuPolicy, "restartPolicy", "NotRequired", 0)
	if boosted.ServiceAccount != "" {
		yamlnode.SetScalar(pod, "serviceAccountName", boosted.ServiceAccount, 0)
		if old := yamlnode.MapValue(pod, "serviceAccount"); old != nil { // the deprecated alias must agree
			old.Value = boosted.ServiceAccount
		}
	}
	if boosted.NoAutomount {
		v := yamlnode.MapValue(pod, "automountServiceAccountToken")
		if v == nil {
			pod.Content = append(pod.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: "automountServiceAccountToken"}, &yaml.Node{Kind: yaml.ScalarNode})
			v = pod.Content[len(pod.Content)-1]
		}
		*v = yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: "false"}
	}
	return true
}

// objectsHeader opens each object inject adds to the stream, like Helm's "# Source:" lines.
const objectsHeader = "# Source: pinot-broker-warmup (warmup-inject, brokerCpuBoost)\n"

// AddObjects adds the chart's objects (a YAML stream, what the boost of statefulSet needs) to the
// manifests: an object already there (the same kind, namespace and name) is replaced in place
// when it is this chart's (an earlier run's, or another StatefulSet's boost's), any other is a
// refusal (collision.go); the rest are appended.
func AddObjects(docs []find.Manifest, stream, statefulSet string) ([]find.Manifest, error) {
	for _, d := range find.SplitStream([]byte(stream)) {
		body := strings.TrimSpace(d.Body)
		if body == "" {
			continue
		}
		var obj find.Object
		if err := yaml.Unmarshal([]byte(body), &obj); err != nil || obj.Kind == "" {
			return nil, fmt.Errorf("reading the chart's brokerCpuBoost objects: %v\n%s", err, body)
		}
		doc := find.Document{Separator: "---\n", Body: objectsHeader + body + "\n"}
		replace := -1
		for i := range docs {
			if docs[i].Obj.Kind == "" || !sameObject(docs[i].Obj, obj) {
				continue
			}
			if !owned(docs[i].Obj) {
				return nil, collisionErr(docs, i, obj, statefulSet)
			}
			if replace < 0 {
				replace = i
			}
		}
		if replace >= 0 {
			r := &docs[replace]
			r.Body, r.Obj, r.Node, r.Changed = doc.Body, obj, nil, false
			continue
		}
		if n := len(docs); n > 0 && docs[n-1].Body != "" && !strings.HasSuffix(docs[n-1].Body, "\n") {
			docs[n-1].Body += "\n"
		}
		docs = append(docs, find.Manifest{Document: doc, Obj: obj})
	}
	return docs, nil
}
