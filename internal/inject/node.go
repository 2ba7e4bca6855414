package inject

import (
	yaml "go.yaml.in/yaml/v3"
)

// Helpers over yaml.Node: inject edits the broker StatefulSet as a node tree rather than as
// decoded structs so that key order, comments and fields it does not know survive the edit.

// mapValue returns the value node under key in a mapping node, or nil.
func mapValue(m *yaml.Node, key string) *yaml.Node {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

// at follows mapping keys from n; nil when any step is missing.
func at(n *yaml.Node, keys ...string) *yaml.Node {
	for _, k := range keys {
		n = mapValue(n, k)
	}
	return n
}

// sequenceAt returns the block sequence under key, creating it (or replacing an empty or null
// value such as the official chart's "initContainers: []") when needed.
func sequenceAt(m *yaml.Node, key string) *yaml.Node {
	v := mapValue(m, key)
	if v != nil && v.Kind == yaml.SequenceNode {
		if len(v.Content) == 0 {
			v.Style = 0 // a flow "[]" would otherwise put the added container on one line
		}
		return v
	}
	seq := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
	if v != nil {
		*v = *seq
		return v
	}
	m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key}, seq)
	return seq
}

// nameOf is the "name" field of a list entry (containers, volumes, ports).
func nameOf(n *yaml.Node) string {
	if v := mapValue(n, "name"); v != nil {
		return v.Value
	}
	return ""
}

// documentRoot is the top mapping of a parsed document, or nil for an empty one.
func documentRoot(doc *yaml.Node) *yaml.Node {
	if doc.Kind == yaml.DocumentNode && len(doc.Content) == 1 {
		return doc.Content[0]
	}
	return nil
}
