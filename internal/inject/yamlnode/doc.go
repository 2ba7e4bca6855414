// Package yamlnode holds the helpers over yaml.Node that every room of warmup-inject edits
// manifests and the chart's output with: find a key or a named entry, create a block mapping or
// sequence, set a scalar. The rooms edit the broker's StatefulSet as a node tree rather than as
// decoded structs so that key order, comments and the fields they do not know survive the edit.
// It knows no Kubernetes kind, no value of the chart and no room.
package yamlnode
