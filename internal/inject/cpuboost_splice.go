package inject

import (
	"fmt"
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// spliceCPUBoost puts brokerCpuBoost into a broker StatefulSet's pod: the broker container's CPU
// raised, resized in place without a restart (resizePolicy cpu NotRequired, its other entries
// kept), and the pod's ServiceAccount (with no automounted token when it is the boost's own).
// Nothing else of the broker container changes. Reports whether the document changed.
func spliceCPUBoost(stsRoot *yaml.Node, containerName string, inj injection) bool {
	cpu := inj.brokerCpu
	if cpu.request == "" && cpu.limit == "" {
		return false
	}
	pod := at(stsRoot, "spec", "template", "spec")
	broker := namedEntry(at(pod, "containers"), containerName)
	if pod == nil || broker == nil {
		return false
	}
	res := mappingAt(broker, "resources")
	setScalar(mappingAt(res, "requests"), "cpu", cpu.request, yaml.DoubleQuotedStyle)
	if cpu.limit != "" {
		setScalar(mappingAt(res, "limits"), "cpu", cpu.limit, yaml.DoubleQuotedStyle)
	}
	policies := sequenceAt(broker, "resizePolicy")
	var cpuPolicy *yaml.Node
	for _, p := range policies.Content {
		if v := mapValue(p, "resourceName"); v != nil && v.Value == "cpu" {
			cpuPolicy = p
		}
	}
	if cpuPolicy == nil {
		cpuPolicy = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
		policies.Content = append(policies.Content, cpuPolicy)
		setScalar(cpuPolicy, "resourceName", "cpu", 0)
	}
	setScalar(cpuPolicy, "restartPolicy", "NotRequired", 0)
	if inj.serviceAccount != "" {
		setScalar(pod, "serviceAccountName", inj.serviceAccount, 0)
		if old := mapValue(pod, "serviceAccount"); old != nil { // the deprecated alias must agree
			old.Value = inj.serviceAccount
		}
	}
	if inj.noAutomount {
		v := mapValue(pod, "automountServiceAccountToken")
		if v == nil {
			pod.Content = append(pod.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: "automountServiceAccountToken"}, &yaml.Node{Kind: yaml.ScalarNode})
			v = pod.Content[len(pod.Content)-1]
		}
		*v = yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: "false"}
	}
	return true
}

// mappingAt returns the block mapping under key, creating it (or replacing a null or empty flow
// value such as the official chart's "securityContext: {}") when needed.
func mappingAt(m *yaml.Node, key string) *yaml.Node {
	v := mapValue(m, key)
	if v != nil && v.Kind == yaml.MappingNode {
		if len(v.Content) == 0 {
			v.Style = 0
		}
		return v
	}
	n := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	if v != nil {
		*v = *n
		return v
	}
	m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key}, n)
	return n
}

// setScalar sets key to a string value in a mapping, in place when the key is there.
func setScalar(m *yaml.Node, key, value string, style yaml.Style) {
	n := yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: value, Style: style}
	if v := mapValue(m, key); v != nil {
		n.LineComment = v.LineComment
		*v = n
		return
	}
	m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key}, &n)
}

// objectsHeader opens each object inject adds to the stream, like Helm's "# Source:" lines.
const objectsHeader = "# Source: pinot-broker-warmup (warmup-inject, brokerCpuBoost)\n"

// addObjects adds the chart's objects (a YAML stream) to the manifests: an object already there
// (same kind, namespace and name: an earlier run's) is replaced in place, any other appended.
func addObjects(docs []manifest, stream string) ([]manifest, error) {
	for _, d := range splitStream([]byte(stream)) {
		body := strings.TrimSpace(d.body)
		if body == "" {
			continue
		}
		var obj object
		if err := yaml.Unmarshal([]byte(body), &obj); err != nil || obj.Kind == "" {
			return nil, fmt.Errorf("reading the chart's brokerCpuBoost objects: %v\n%s", err, body)
		}
		doc := document{separator: "---\n", body: objectsHeader + body + "\n"}
		replaced := false
		for i := range docs {
			o := docs[i].obj
			if docs[i].node != nil && o.Kind == obj.Kind && o.Metadata.Namespace == obj.Metadata.Namespace && o.Metadata.Name == obj.Metadata.Name {
				docs[i].document.body = doc.body
				docs[i].changed, docs[i].node, replaced = false, nil, true
				break
			}
		}
		if replaced {
			continue
		}
		if n := len(docs); n > 0 && docs[n-1].body != "" && !strings.HasSuffix(docs[n-1].body, "\n") {
			docs[n-1].body += "\n"
		}
		docs = append(docs, manifest{document: doc, obj: obj})
	}
	return docs, nil
}
