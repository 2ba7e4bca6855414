package boost

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/warmup-sidecar/warmup-sidecar/internal/inject/chartvalues"
	"github.com/warmup-sidecar/warmup-sidecar/internal/inject/find"
)

// planServiceAccount decides who holds the boost's resize right for one StatefulSet: the values
// the chart renders its ServiceAccount with, and a note for the operator ("" for none).
//   - Never the namespace's default ServiceAccount: every pod naming none runs as it.
//   - serviceAccount.create false: the pods' own (or the named) ServiceAccount, shared with any
//     other pod running as it; the admission policy holds each of them to its own pod, and the
//     note says so.
//   - create true: the pods move to the boost's ServiceAccount. What their previous one carries
//     for them (annotations: a cloud workload identity; imagePullSecrets) goes with them when it
//     is in the manifests (values given for the boost's win); when it is not, the note says
//     nothing could be carried.
func planServiceAccount(values map[string]any, t find.Broker, docs []find.Manifest) (map[string]any, string, error) {
	create, _ := chartvalues.Lookup(values, "brokerCpuBoost", "serviceAccount", "create").(bool)
	name, _ := chartvalues.Lookup(values, "brokerCpuBoost", "serviceAccount", "name").(string)
	out := map[string]any{}
	switch {
	case !create && name == "":
		name = t.ServiceAccount
		out["name"] = name
	case create && name == "":
		name = t.Name + "-warmup"
	}
	if name == "default" {
		return nil, "", fmt.Errorf("the resize right would be bound to ServiceAccount default, which every pod of namespace %s that names no ServiceAccount runs as: "+
			"set brokerCpuBoost.serviceAccount.create: true (the default: the broker pods get one of their own), or run the broker pods as a ServiceAccount of theirs and name it", t.Namespace)
	}
	policy := fmt.Sprintf("%s.%s-warmup-cpu-boost", t.Namespace, t.Name)
	if !create {
		return out, fmt.Sprintf("warning: brokerCpuBoost binds the resize right to ServiceAccount %s, which any other pod may run as too (the official chart's pinot: every Pinot component): "+
			"every pod of it may then resize the broker pods, each held by the admission policy %s to its own pod's broker CPU; "+
			"brokerCpuBoost.serviceAccount.create: true gives the broker pods a ServiceAccount of their own", name, policy), nil
	}
	prev, found := findServiceAccount(docs, t.Namespace, t.ServiceAccount)
	if t.ServiceAccount == name {
		// An earlier run's: it already holds what was carried over.
		if found {
			carry(out, values, prev, name)
		}
		return out, "", nil
	}
	if !found {
		return out, fmt.Sprintf("warning: the broker pods move from ServiceAccount %s to %s, and ServiceAccount %s is not in the manifests: "+
			"any annotations (a cloud workload identity) or imagePullSecrets it holds in the cluster do not follow them; "+
			"give them in brokerCpuBoost.serviceAccount.annotations and imagePullSecrets, or set serviceAccount.create: false", t.ServiceAccount, name, t.ServiceAccount), nil
	}
	return out, carry(out, values, prev, name), nil
}

// chartServiceAccount is what a ServiceAccount in the manifests holds for its pods.
type chartServiceAccount struct {
	name        string
	annotations map[string]string
	pullSecrets []string
}

// findServiceAccount finds the named ServiceAccount of the namespace in the manifests (one
// rendered without a namespace is the release's).
func findServiceAccount(docs []find.Manifest, namespace, name string) (chartServiceAccount, bool) {
	for _, d := range docs {
		o := d.Obj
		if d.Node == nil || o.Kind != "ServiceAccount" || o.Metadata.Name != name || (o.Metadata.Namespace != namespace && o.Metadata.Namespace != "") {
			continue
		}
		var sa struct {
			Metadata struct {
				Annotations map[string]string `yaml:"annotations"`
			} `yaml:"metadata"`
			ImagePullSecrets []struct {
				Name string `yaml:"name"`
			} `yaml:"imagePullSecrets"`
		}
		if err := d.Node.Decode(&sa); err != nil {
			continue // not one Kubernetes would accept either; nothing to carry
		}
		out := chartServiceAccount{name: name, annotations: sa.Metadata.Annotations}
		for _, s := range sa.ImagePullSecrets {
			out.pullSecrets = append(out.pullSecrets, s.Name)
		}
		return out, true
	}
	return chartServiceAccount{}, false
}

// carry sets the boost's ServiceAccount (to) values to prev's annotations under the values' own,
// and to the values' imagePullSecrets or else prev's; it returns a note naming what was carried.
func carry(out map[string]any, values map[string]any, prev chartServiceAccount, to string) string {
	annotations := map[string]any{}
	for k, v := range prev.annotations {
		annotations[k] = v
	}
	given, _ := chartvalues.Lookup(values, "brokerCpuBoost", "serviceAccount", "annotations").(map[string]any)
	maps.Copy(annotations, given)
	if len(annotations) > 0 {
		out["annotations"] = annotations
	}
	var carried []string
	if len(prev.annotations) > 0 {
		carried = append(carried, "annotations ("+strings.Join(slices.Sorted(maps.Keys(prev.annotations)), ", ")+")")
	}
	if secrets, _ := chartvalues.Lookup(values, "brokerCpuBoost", "serviceAccount", "imagePullSecrets").([]any); len(secrets) == 0 && len(prev.pullSecrets) > 0 {
		var list []any
		for _, s := range prev.pullSecrets {
			list = append(list, map[string]any{"name": s})
		}
		out["imagePullSecrets"] = list
		carried = append(carried, "imagePullSecrets")
	}
	if len(carried) == 0 {
		return ""
	}
	return fmt.Sprintf("ServiceAccount %s's %s carried over to %s", prev.name, strings.Join(carried, " and "), to)
}
