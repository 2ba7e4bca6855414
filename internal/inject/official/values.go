package official

import (
	"fmt"
	"reflect"
	"regexp"
	"strings"

	yaml "go.yaml.in/yaml/v3"

	"github.com/warmup-sidecar/warmup-sidecar/internal/inject/find"
	"github.com/warmup-sidecar/warmup-sidecar/internal/inject/yamlnode"
)

// The values route: what the post-renderer does to the official Pinot chart's broker
// StatefulSet, said in that chart's own values. The chart renders broker.initContainers as
// given (where the sidecar goes, as a native sidecar), broker.jvmOpts and broker.extraEnv into
// the broker's env, broker.resources, broker.probes.{readiness,startup}.*,
// broker.persistence.extraVolumes/extraVolumeMounts beside its own `config` volume, and
// broker.extra.configs into pinot-broker.conf. Values reads the injected StatefulSet
// back into those values; whatever else the injection changed has no value there and is refused.

// The official chart's own parts of the broker pod, which its values do not set.
const (
	officialConfigVolume = "config"
	officialJavaOptsEnv  = "JAVA_OPTS"
)

// officialJavaOptsTail is what the chart appends to broker.jvmOpts in JAVA_OPTS:
// "{{ jvmOpts }} -Dlog4j2.configurationFile={{ log4j2ConfFile }} -Dplugins.dir={{ pluginsDir }}".
var officialJavaOptsTail = regexp.MustCompile(` -Dlog4j2\.configurationFile=\S* -Dplugins\.dir=\S*`)

// The lines the chart writes before broker.extra.configs in pinot-broker.conf, and the first of
// the lines it writes after them (pinotAuth.enabled).
var (
	officialConfHead = []string{"pinot.broker.client.queryPort=", "pinot.broker.routing.table.builder.class="}
	officialConfAuth = "pinot.broker.access.control.class="
)

// Edit is one broker StatefulSet before and after the injection, and its config text.
type Edit struct {
	Name             string
	Container        string
	Before, After    *yaml.Node // the StatefulSets' roots
	ConfBefore, Conf string     // pinot-broker.conf; equal when the injection left it alone
}

// Values says the edit as values of the official chart: a mapping with one key, broker.
func Values(e Edit) (*yaml.Node, error) {
	fail := func(format string, a ...any) (*yaml.Node, error) {
		return nil, fmt.Errorf("StatefulSet %s: "+format, append([]any{e.Name}, a...)...)
	}
	if e.Container != find.OfficialBrokerContainer {
		return fail("the broker container is %q: the values route is for the official Pinot chart, whose broker container is %q (use the post-renderer)", e.Container, find.OfficialBrokerContainer)
	}
	podBefore, podAfter := yamlnode.At(e.Before, "spec", "template", "spec"), yamlnode.At(e.After, "spec", "template", "spec")
	if !hasNamed(yamlnode.MapValue(podBefore, "volumes"), officialConfigVolume) {
		return fail("the pod has no volume %q: not the official Pinot chart's broker (use the post-renderer)", officialConfigVolume)
	}
	if err := sameExcept(podBefore, podAfter, "pod spec", "initContainers", "volumes", "containers"); err != nil {
		return fail("%v", err)
	}
	bBefore := yamlnode.NamedEntry(yamlnode.MapValue(podBefore, "containers"), e.Container)
	bAfter := yamlnode.NamedEntry(yamlnode.MapValue(podAfter, "containers"), e.Container)
	if err := sameContainersBut(yamlnode.MapValue(podBefore, "containers"), yamlnode.MapValue(podAfter, "containers"), e.Container); err != nil {
		return fail("%v", err)
	}
	if err := sameExcept(bBefore, bAfter, "broker container", "env", "resources", "readinessProbe", "startupProbe", "volumeMounts", "resizePolicy"); err != nil {
		return fail("%v", err)
	}
	if err := defaultResizePolicy(yamlnode.MapValue(bBefore, "resizePolicy"), yamlnode.MapValue(bAfter, "resizePolicy")); err != nil {
		return fail("%v", err)
	}

	broker := newMapping()
	if !sameNode(yamlnode.MapValue(podBefore, "initContainers"), yamlnode.MapValue(podAfter, "initContainers")) {
		setKey(broker, "initContainers", yamlnode.MapValue(podAfter, "initContainers"))
	}
	if err := envValues(broker, yamlnode.MapValue(bBefore, "env"), yamlnode.MapValue(bAfter, "env")); err != nil {
		return fail("%v", err)
	}
	if r := yamlnode.MapValue(bAfter, "resources"); !sameNode(yamlnode.MapValue(bBefore, "resources"), r) {
		setKey(broker, "resources", r)
	}
	probes := newMapping()
	for _, p := range []struct{ key, value string }{{"readinessProbe", "readiness"}, {"startupProbe", "startup"}} {
		if pr := yamlnode.MapValue(bAfter, p.key); !sameNode(yamlnode.MapValue(bBefore, p.key), pr) {
			setKey(probes, p.value, probeValues(pr))
		}
	}
	if len(probes.Content) > 0 {
		setKey(broker, "probes", probes)
	}
	persistence := newMapping()
	if v := withoutNamed(yamlnode.MapValue(podAfter, "volumes"), officialConfigVolume); !sameNode(withoutNamed(yamlnode.MapValue(podBefore, "volumes"), officialConfigVolume), v) {
		setKey(persistence, "extraVolumes", v)
	}
	if m := withoutNamed(yamlnode.MapValue(bAfter, "volumeMounts"), officialConfigVolume); !sameNode(withoutNamed(yamlnode.MapValue(bBefore, "volumeMounts"), officialConfigVolume), m) {
		setKey(persistence, "extraVolumeMounts", m)
	}
	if len(persistence.Content) > 0 {
		setKey(broker, "persistence", persistence)
	}
	if e.Conf != e.ConfBefore {
		configs, err := extraConfigs(e.ConfBefore, e.Conf)
		if err != nil {
			return fail("%v", err)
		}
		setKey(broker, "extra", mapping("configs", &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: configs, Style: yaml.LiteralStyle}))
	}
	return mapping("broker", broker), nil
}

// defaultResizePolicy: brokerCpuBoost writes the broker's resizePolicy as cpu NotRequired, which
// is what the API server defaults an omitted one to (in-place resize, Kubernetes >= 1.33): the
// official chart, which has no value for it, gets the same policy by leaving it out.
func defaultResizePolicy(before, after *yaml.Node) error {
	if sameNode(before, after) {
		return nil
	}
	for _, p := range yamlnode.Items(after) {
		if yamlnode.Scalar(yamlnode.MapValue(p, "restartPolicy")) != "NotRequired" {
			return fmt.Errorf("the injection set the broker container's resizePolicy for %s to %s, which the official chart has no value for (use the post-renderer)",
				yamlnode.Scalar(yamlnode.MapValue(p, "resourceName")), yamlnode.Scalar(yamlnode.MapValue(p, "restartPolicy")))
		}
	}
	if len(yamlnode.Items(before)) > 0 {
		return fmt.Errorf("the broker container has a resizePolicy of its own, which the injection changed and the official chart has no value for (use the post-renderer)")
	}
	return nil
}

// envValues: the chart renders JAVA_OPTS (broker.jvmOpts and its tail) first, then
// broker.extraEnv. An edited JAVA_OPTS is broker.jvmOpts again, without the tail the chart adds.
func envValues(broker, before, after *yaml.Node) error {
	b, a := yamlnode.Items(before), yamlnode.Items(after)
	if len(b) == 0 || len(a) == 0 || yamlnode.NameOf(b[0]) != officialJavaOptsEnv || yamlnode.NameOf(a[0]) != officialJavaOptsEnv {
		return fmt.Errorf("the broker container's first env entry is not %s: not the official Pinot chart's broker (use the post-renderer)", officialJavaOptsEnv)
	}
	if !sameNode(b[0], a[0]) {
		value := yamlnode.Scalar(yamlnode.MapValue(a[0], "value"))
		if len(officialJavaOptsTail.FindAllStringIndex(value, -1)) != 1 {
			return fmt.Errorf("%s %q does not end as the official chart writes it (broker.jvmOpts, then -Dlog4j2.configurationFile and -Dplugins.dir): cannot tell broker.jvmOpts", officialJavaOptsEnv, value)
		}
		jvm := strings.TrimSpace(officialJavaOptsTail.ReplaceAllString(value, ""))
		setKey(broker, "jvmOpts", &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: jvm})
	}
	rest := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Content: a[1:]}
	if !sameNode(&yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Content: b[1:]}, rest) {
		setKey(broker, "extraEnv", rest)
	}
	return nil
}

// probeValues are a probe's timing as broker.probes.<kind>.* values. The chart renders each with
// `| default .Values.probes.<field>`, so a 0 would come back as the chart-wide default (60 s for
// the delay): the route asks for no delay with 1 s, the least the template renders.
func probeValues(probe *yaml.Node) *yaml.Node {
	out := newMapping()
	for _, k := range []string{"initialDelaySeconds", "periodSeconds", "failureThreshold", "successThreshold", "timeoutSeconds"} {
		v := yamlnode.Scalar(yamlnode.MapValue(probe, k))
		if k == "initialDelaySeconds" && (v == "" || v == "0") {
			v = "1"
		}
		if v != "" {
			setKey(out, k, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: v})
		}
	}
	return out
}

// extraConfigs is broker.extra.configs that renders the edited pinot-broker.conf: the edited text
// without the lines the chart writes before it. The chart writes its pinotAuth lines after
// broker.extra.configs; with them the added lines could not be told from the chart's.
func extraConfigs(before, after string) (string, error) {
	if strings.Contains(before, officialConfAuth) {
		return "", fmt.Errorf("pinot-broker.conf has the official chart's pinotAuth lines (%s...): the values route cannot tell broker.extra.configs from them; add the loopback listener's lines to broker.extra.configs yourself (loopbackListener in README), or use the post-renderer", officialConfAuth)
	}
	lines := strings.Split(after, "\n")
	for _, head := range officialConfHead {
		if len(lines) > 0 && strings.HasPrefix(strings.TrimSpace(lines[0]), head) {
			lines = lines[1:]
		}
	}
	return strings.Trim(strings.Join(lines, "\n"), "\n"), nil
}

// sameExcept: two mappings equal but for the keys the values route maps; else an error naming
// the first other key that differs.
func sameExcept(a, b *yaml.Node, what string, mapped ...string) error {
	skip := map[string]bool{}
	for _, k := range mapped {
		skip[k] = true
	}
	for _, k := range keysOf(a, b) {
		if !skip[k] && !sameNode(yamlnode.MapValue(a, k), yamlnode.MapValue(b, k)) {
			return fmt.Errorf("the injection changed the %s's %s, which the official chart has no value for (use the post-renderer)", what, k)
		}
	}
	return nil
}

// sameContainersBut: the container lists equal but for the one named keep (the broker).
func sameContainersBut(a, b *yaml.Node, keep string) error {
	other := func(seq *yaml.Node) []*yaml.Node {
		var out []*yaml.Node
		for _, c := range yamlnode.Items(seq) {
			if yamlnode.NameOf(c) != keep {
				out = append(out, c)
			}
		}
		return out
	}
	oa, ob := other(a), other(b)
	if len(oa) != len(ob) {
		return fmt.Errorf("the injection added a regular container, which the official chart has no value for: the values route runs the sidecar as a native sidecar (nativeSidecar: true)")
	}
	for i := range oa {
		if !sameNode(oa[i], ob[i]) {
			return fmt.Errorf("the injection changed container %q, which the official chart has no value for (use the post-renderer)", yamlnode.NameOf(ob[i]))
		}
	}
	return nil
}

// sameNode compares two subtrees as data (key order, style and comments aside).
func sameNode(a, b *yaml.Node) bool {
	return reflect.DeepEqual(decodeNode(a), decodeNode(b))
}

func decodeNode(n *yaml.Node) any {
	if n == nil {
		return nil
	}
	var v any
	if err := n.Decode(&v); err != nil {
		return err.Error()
	}
	if s, ok := v.([]any); ok && len(s) == 0 {
		return nil // [] and an absent list render the same
	}
	return v
}

func keysOf(ms ...*yaml.Node) []string {
	seen := map[string]bool{}
	var out []string
	for _, m := range ms {
		if m == nil || m.Kind != yaml.MappingNode {
			continue
		}
		for i := 0; i+1 < len(m.Content); i += 2 {
			if k := m.Content[i].Value; !seen[k] {
				seen[k] = true
				out = append(out, k)
			}
		}
	}
	return out
}

func hasNamed(seq *yaml.Node, name string) bool {
	for _, n := range yamlnode.Items(seq) {
		if yamlnode.NameOf(n) == name {
			return true
		}
	}
	return false
}

// withoutNamed is a copy of a sequence without the entries named name.
func withoutNamed(seq *yaml.Node, name string) *yaml.Node {
	out := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
	for _, n := range yamlnode.Items(seq) {
		if yamlnode.NameOf(n) != name {
			out.Content = append(out.Content, n)
		}
	}
	return out
}

func newMapping() *yaml.Node { return &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"} }

func mapping(key string, value *yaml.Node) *yaml.Node {
	m := newMapping()
	setKey(m, key, value)
	return m
}

// setKey appends key: value to a mapping (the route writes each key once).
func setKey(m *yaml.Node, key string, value *yaml.Node) {
	if value == nil {
		value = &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
	}
	if value.Kind == yaml.SequenceNode {
		value.Style = 0
	}
	m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key}, value)
}
