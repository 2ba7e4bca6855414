package inject

import (
	"fmt"
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// addJavaOpts appends the chart's broker JVM options (brokerJvm) to the broker container's
// env variable envName, which must hold a literal value: the official chart passes
// broker.jvmOpts as JAVA_OPTS, and Pinot's start script replaces its own defaults with it, so
// creating the variable would silently drop the operator's heap and GC settings. Each option
// lands exactly once: an option of the same name already there (-XX:TieredStopAtLevel=4) is
// replaced, since the values asked for this one. Reports whether the value changed.
func addJavaOpts(stsRoot *yaml.Node, t brokerTarget, containerName, envName, opts string) (bool, error) {
	broker := namedEntry(at(stsRoot, "spec", "template", "spec", "containers"), containerName)
	v := namedEntry(mapValue(broker, "env"), envName)
	value := mapValue(v, "value")
	if value == nil || value.Kind != yaml.ScalarNode || mapValue(v, "valueFrom") != nil {
		return false, fmt.Errorf("brokerJvm: container %q of StatefulSet %s has no env %s with a literal value to add %q to "+
			"(the official chart sets JAVA_OPTS from broker.jvmOpts; brokerJvm.javaOptsEnv names another variable)",
			containerName, t.name, envName, opts)
	}
	merged := mergeJavaOpts(value.Value, opts)
	if merged == value.Value {
		return false, nil
	}
	value.Value = merged
	return true, nil
}

// mergeJavaOpts appends each option of add to the space-separated options in have, after
// removing the options of the same name from have. have is returned unchanged when each option
// is already there exactly once, so a second run changes nothing.
func mergeJavaOpts(have, add string) string {
	tokens := strings.Fields(have)
	changed := false
	for _, opt := range strings.Fields(add) {
		key := javaOptName(opt)
		var kept []string
		same := 0
		exact := false
		for _, tok := range tokens {
			if javaOptName(tok) == key {
				same++
				exact = tok == opt
				continue
			}
			kept = append(kept, tok)
		}
		if same == 1 && exact {
			continue
		}
		tokens = append(kept, opt)
		changed = true
	}
	if !changed {
		return have
	}
	return strings.Join(tokens, " ")
}

// javaOptName is what makes two JVM options the same setting: -XX:[+-]Name[=v] by Name
// (AOTCache and AOTCacheOutput are one), -Dkey=v by key, anything else by its whole text.
func javaOptName(opt string) string {
	switch {
	case strings.HasPrefix(opt, "-XX:"):
		name := strings.TrimLeft(strings.TrimPrefix(opt, "-XX:"), "+-")
		name, _, _ = strings.Cut(name, "=")
		if name == "AOTCacheOutput" {
			// The JVM refuses both at once: a train-mode option is replaced by a use-mode one.
			name = "AOTCache"
		}
		return "-XX:" + name
	case strings.HasPrefix(opt, "-D"):
		name, _, _ := strings.Cut(opt, "=")
		return name
	}
	return opt
}

// namedEntry is the entry of a sequence whose name is name, or nil.
func namedEntry(seq *yaml.Node, name string) *yaml.Node {
	if seq == nil || seq.Kind != yaml.SequenceNode {
		return nil
	}
	for _, n := range seq.Content {
		if nameOf(n) == name {
			return n
		}
	}
	return nil
}
