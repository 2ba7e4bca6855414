package edit

import (
	"fmt"
	"strings"

	yaml "go.yaml.in/yaml/v3"

	"github.com/warmup-sidecar/warmup-sidecar/internal/inject/chartvalues"
	"github.com/warmup-sidecar/warmup-sidecar/internal/inject/find"
	"github.com/warmup-sidecar/warmup-sidecar/internal/inject/yamlnode"
)

// AddJavaOpts appends the chart's broker JVM options (brokerJvm; levers names the values that
// asked for them) to the broker container's env variable envName, in the entry the kubelet
// uses: the last of that name (a later env entry overrides an earlier one and any envFrom). The
// official chart renders its own JAVA_OPTS (broker.jvmOpts) first and broker.extraEnv after it,
// so an operator's JAVA_OPTS there is the one the JVM gets; the chart's, shadowed, is left as
// rendered. That entry must hold a literal value: Pinot's start script replaces its own
// defaults with JAVA_OPTS, so creating the variable would silently drop the operator's heap and
// GC settings, and a valueFrom cannot be edited here. Each option lands exactly once: an option
// of the same name already there (-XX:TieredStopAtLevel=4) is replaced, since the values asked
// for this one. Reports whether the value changed.
func AddJavaOpts(stsRoot *yaml.Node, t find.Broker, envName, opts, levers string) (bool, error) {
	broker := yamlnode.NamedEntry(yamlnode.At(stsRoot, "spec", "template", "spec", "containers"), t.Container)
	entries := namedEntries(yamlnode.MapValue(broker, "env"), envName)
	if len(entries) == 0 {
		fromEnvFrom := ""
		if len(yamlnode.Items(yamlnode.MapValue(broker, "envFrom"))) > 0 {
			fromEnvFrom = "; its envFrom may set it, which warmup-inject cannot edit"
		}
		return false, fmt.Errorf("%s: container %q of StatefulSet %s has no env %s with a literal value to add %q to%s "+
			"(the official chart sets JAVA_OPTS from broker.jvmOpts; brokerJvm.javaOptsEnv names another variable)",
			levers, t.Container, t.Name, envName, opts, fromEnvFrom)
	}
	v := entries[len(entries)-1]
	value := yamlnode.MapValue(v, "value")
	if yamlnode.MapValue(v, "valueFrom") != nil || value == nil || value.Kind != yaml.ScalarNode {
		what := "has no literal value"
		if yamlnode.MapValue(v, "valueFrom") != nil {
			what = "takes its value from valueFrom"
		}
		return false, fmt.Errorf("%s: container %q of StatefulSet %s: the env entry %s the kubelet uses "+
			"(the last of %d with that name; official chart: broker.extraEnv) %s, so warmup-inject cannot add %q to it: "+
			"set %s in broker.extraEnv with a literal value, or remove it there (the chart's own comes from broker.jvmOpts), or turn off %s",
			levers, t.Container, t.Name, envName, len(entries), what, opts, envName, levers)
	}
	merged := mergeJavaOpts(value.Value, opts)
	if merged == value.Value {
		return false, nil
	}
	value.Value = merged
	return true, nil
}

// JVMLevers names the values that ask for broker JVM options, for messages.
func JVMLevers(values map[string]any) string {
	var on []string
	if c1, _ := chartvalues.Lookup(values, "brokerJvm", "c1Only").(bool); c1 {
		on = append(on, "brokerJvm.c1Only")
	}
	if aot, _ := chartvalues.Lookup(values, "brokerJvm", "aotCache", "enabled").(bool); aot {
		on = append(on, "brokerJvm.aotCache")
	}
	if len(on) == 0 {
		return "brokerJvm"
	}
	return strings.Join(on, " and ")
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

// namedEntries are the entries of a sequence whose name is name, in order.
func namedEntries(seq *yaml.Node, name string) []*yaml.Node {
	var out []*yaml.Node
	for _, n := range yamlnode.Items(seq) {
		if yamlnode.NameOf(n) == name {
			out = append(out, n)
		}
	}
	return out
}
