package find

import (
	"bytes"
	"fmt"
	"strings"

	yaml "go.yaml.in/yaml/v3"

	"github.com/warmup-sidecar/warmup-sidecar/internal/inject/yamlnode"
)

// Manifest is one document of the stream with its parsed node tree (nil when it holds only
// comments, as Helm's output for disabled templates does).
type Manifest struct {
	Document
	Line    int // 1-based line where the body starts, for error messages
	Node    *yaml.Node
	Obj     Object
	Changed bool // the rooms set it when they edit Node: the document is written from Node again
}

// ParseStream splits and parses the manifests. Any document that is not YAML, or not a mapping,
// is an error: Helm would reject it too, and guessing would risk dropping it.
func ParseStream(raw []byte) ([]Manifest, error) {
	var docs []Manifest
	line := 1
	for n, d := range SplitStream(raw) {
		if d.Separator != "" {
			line++
		}
		m := Manifest{Document: d, Line: line}
		line += strings.Count(d.Body, "\n")
		var node yaml.Node
		if err := yaml.Unmarshal([]byte(d.Body), &node); err != nil {
			return nil, fmt.Errorf("manifest document %d (line %d) is not valid YAML: %w", n+1, m.Line, err)
		}
		if root := yamlnode.DocumentRoot(&node); root != nil {
			if root.Kind != yaml.MappingNode {
				return nil, fmt.Errorf("manifest document %d (line %d) is not a Kubernetes object: want a mapping, got %s", n+1, m.Line, kindName(root))
			}
			if err := node.Decode(&m.Obj); err != nil {
				return nil, fmt.Errorf("manifest document %d (line %d): reading apiVersion/kind/metadata: %w", n+1, m.Line, err)
			}
			m.Node = &node
		}
		docs = append(docs, m)
	}
	return docs, nil
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		return fmt.Sprintf("the scalar %q", n.Value)
	case yaml.AliasNode:
		return "an alias"
	}
	return "something else"
}

// Encode writes a changed document with two-space indentation, comments and key order kept.
func Encode(n *yaml.Node) (string, error) {
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(n); err != nil {
		return "", err
	}
	if err := enc.Close(); err != nil {
		return "", err
	}
	return buf.String(), nil
}
