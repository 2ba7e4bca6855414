package edit

import (
	"fmt"
	"strings"

	yaml "go.yaml.in/yaml/v3"

	"github.com/warmup-sidecar/warmup-sidecar/internal/inject/find"
	"github.com/warmup-sidecar/warmup-sidecar/internal/inject/yamlnode"
)

// AddListener appends the loopback listener to the broker's config ConfigMap.
func AddListener(docs []find.Manifest, configMaps map[string]int, t find.Broker, lines string) error {
	if t.ConfigMap.Name == "" {
		return fmt.Errorf("loopbackListener.enabled: cannot find the broker config of StatefulSet %s (no -configFileName arg on a ConfigMap mount)", t.Name)
	}
	i, ok := configMaps[t.Namespace+"/"+t.ConfigMap.Name]
	if !ok {
		return fmt.Errorf("loopbackListener.enabled: ConfigMap %s (broker config of StatefulSet %s) is not in the manifests", t.ConfigMap.Name, t.Name)
	}
	v := yamlnode.At(yamlnode.DocumentRoot(docs[i].Node), "data", t.ConfigMap.Key)
	if v == nil || v.Kind != yaml.ScalarNode {
		return fmt.Errorf("loopbackListener.enabled: ConfigMap %s has no data key %q", t.ConfigMap.Name, t.ConfigMap.Key)
	}
	merged := mergeBrokerConf(v.Value, lines)
	if merged != v.Value {
		v.Value = merged
		v.Style = yaml.LiteralStyle
		docs[i].Changed = true
	}
	return nil
}

// protocolsKey lists Pinot's extra broker listeners by name.
const protocolsKey = "pinot.broker.client.access.protocols"

// mergeBrokerConf adds the chart's listener lines to a pinot-broker.conf text. A key already
// present is rewritten in place rather than repeated (Java properties loaders read a repeated
// key as a list), and the listener name joins an existing access.protocols list instead of
// replacing it. Running it again changes nothing.
func mergeBrokerConf(conf, lines string) string {
	out := strings.Split(conf, "\n")
	index := map[string]int{}
	for i, l := range out {
		if k, _, ok := property(l); ok {
			index[k] = i
		}
	}
	for _, l := range strings.Split(lines, "\n") {
		k, v, ok := property(l)
		if !ok {
			continue
		}
		i, exists := index[k]
		switch {
		case !exists:
			out = append(out, k+"="+v)
			index[k] = len(out) - 1
		case k == protocolsKey:
			_, have, _ := property(out[i])
			out[i] = k + "=" + joinList(have, v)
		default:
			out[i] = k + "=" + v
		}
	}
	return strings.Join(out, "\n")
}

// property splits a "key=value" (or "key: value") properties line; comments and blanks are not.
func property(line string) (key, value string, ok bool) {
	t := strings.TrimSpace(line)
	if t == "" || t[0] == '#' || t[0] == '!' {
		return "", "", false
	}
	i := strings.IndexAny(t, "=:")
	if i <= 0 {
		return "", "", false
	}
	return strings.TrimSpace(t[:i]), strings.TrimSpace(t[i+1:]), true
}

// joinList adds the names in add to the comma list have, keeping order and dropping repeats.
func joinList(have, add string) string {
	var out []string
	seen := map[string]bool{}
	for _, n := range strings.Split(have+","+add, ",") {
		n = strings.TrimSpace(n)
		if n != "" && !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	return strings.Join(out, ",")
}
