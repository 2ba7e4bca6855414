package yamlnode

import (
	yaml "go.yaml.in/yaml/v3"
)

// MapValue returns the value node under key in a mapping node, or nil.
func MapValue(m *yaml.Node, key string) *yaml.Node {
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

// At follows mapping keys from n; nil when any step is missing.
func At(n *yaml.Node, keys ...string) *yaml.Node {
	for _, k := range keys {
		n = MapValue(n, k)
	}
	return n
}

// SequenceAt returns the block sequence under key, creating it (or replacing an empty or null
// value such as the official chart's "initContainers: []") when needed.
func SequenceAt(m *yaml.Node, key string) *yaml.Node {
	return blockAt(m, key, yaml.SequenceNode, "!!seq")
}

// blockAt returns the block collection of kind under key, creating it, or turning an empty flow
// one ("[]", "{}") into block style so what is added goes on lines of its own.
func blockAt(m *yaml.Node, key string, kind yaml.Kind, tag string) *yaml.Node {
	v := MapValue(m, key)
	if v != nil && v.Kind == kind {
		if len(v.Content) == 0 {
			v.Style = 0
		}
		return v
	}
	n := &yaml.Node{Kind: kind, Tag: tag}
	if v != nil {
		*v = *n
		return v
	}
	m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key}, n)
	return n
}

// NameOf is the "name" field of a list entry (containers, volumes, ports).
func NameOf(n *yaml.Node) string {
	if v := MapValue(n, "name"); v != nil {
		return v.Value
	}
	return ""
}

// DocumentRoot is the top mapping of a parsed document, or nil for an empty one.
func DocumentRoot(doc *yaml.Node) *yaml.Node {
	if doc.Kind == yaml.DocumentNode && len(doc.Content) == 1 {
		return doc.Content[0]
	}
	return nil
}

// Scalar is a scalar node's value; "" for a missing one.
func Scalar(n *yaml.Node) string {
	if n == nil || n.Kind != yaml.ScalarNode {
		return ""
	}
	return n.Value
}

// Items is the entries of a sequence node; nil for a missing or null value.
func Items(seq *yaml.Node) []*yaml.Node {
	if seq == nil || seq.Kind != yaml.SequenceNode {
		return nil
	}
	return seq.Content
}

// NamedEntry is the first entry of a sequence whose name is name, or nil.
func NamedEntry(seq *yaml.Node, name string) *yaml.Node {
	if seq == nil || seq.Kind != yaml.SequenceNode {
		return nil
	}
	for _, n := range seq.Content {
		if NameOf(n) == name {
			return n
		}
	}
	return nil
}

// MappingAt returns the block mapping under key, creating it (or replacing a null or empty flow
// value such as the official chart's "securityContext: {}") when needed.
func MappingAt(m *yaml.Node, key string) *yaml.Node {
	return blockAt(m, key, yaml.MappingNode, "!!map")
}

// SetScalar sets key to a string value in a mapping, in place when the key is there.
func SetScalar(m *yaml.Node, key, value string, style yaml.Style) {
	n := yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: value, Style: style}
	if v := MapValue(m, key); v != nil {
		n.LineComment = v.LineComment
		*v = n
		return
	}
	m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key}, &n)
}
