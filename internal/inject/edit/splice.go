package edit

import (
	yaml "go.yaml.in/yaml/v3"

	"github.com/warmup-sidecar/warmup-sidecar/internal/inject/yamlnode"
)

// SplicePod puts the rendered containers and volumes into a broker StatefulSet's pod spec.
// Any container or volume already there under a rendered name is removed first, from both
// container lists, so a second run (or a switch to nativeSidecar) still leaves exactly one
// sidecar. The broker container and every other entry are not touched. Reports whether the
// document changed.
func SplicePod(stsRoot *yaml.Node, containers, initContainers, volumes []*yaml.Node) bool {
	pod := yamlnode.At(stsRoot, "spec", "template", "spec")
	if pod == nil || pod.Kind != yaml.MappingNode {
		return false
	}
	names := map[string]bool{}
	for _, c := range append(append([]*yaml.Node{}, containers...), initContainers...) {
		names[yamlnode.NameOf(c)] = true
	}
	changed := false
	for _, key := range []string{"containers", "initContainers"} {
		if removeNamed(yamlnode.MapValue(pod, key), names) {
			changed = true
		}
	}
	if appendAll(pod, "containers", containers) {
		changed = true
	}
	if appendAll(pod, "initContainers", initContainers) {
		changed = true
	}
	volNames := map[string]bool{}
	for _, v := range volumes {
		volNames[yamlnode.NameOf(v)] = true
	}
	if removeNamed(yamlnode.MapValue(pod, "volumes"), volNames) {
		changed = true
	}
	if appendAll(pod, "volumes", volumes) {
		changed = true
	}
	return changed
}

// removeNamed drops the entries of a sequence whose name is in names.
func removeNamed(seq *yaml.Node, names map[string]bool) bool {
	if seq == nil || seq.Kind != yaml.SequenceNode || len(names) == 0 {
		return false
	}
	kept := seq.Content[:0:0]
	for _, n := range seq.Content {
		if !names[yamlnode.NameOf(n)] {
			kept = append(kept, n)
		}
	}
	removed := len(kept) != len(seq.Content)
	seq.Content = kept
	return removed
}

// appendAll appends entries to the sequence under key, creating it if needed. Native sidecars
// go last among initContainers: the other init containers (the official chart's
// broker.initContainers) still run to completion first, as they did without it.
func appendAll(pod *yaml.Node, key string, entries []*yaml.Node) bool {
	if len(entries) == 0 {
		return false
	}
	seq := yamlnode.SequenceAt(pod, key)
	seq.Content = append(seq.Content, entries...)
	return true
}
