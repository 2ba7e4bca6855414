package boost

import (
	"fmt"
	"strings"

	"github.com/warmup-sidecar/warmup-sidecar/internal/inject/find"
)

// ownLabel is what every object the pinot-broker-warmup chart renders carries (brokerCpuBoost's
// ServiceAccount, Role and RoleBinding, the PodMonitor, the dashboard ConfigMap): an object of
// the stream with it is this chart's, from an earlier run of inject or an umbrella chart, and
// inject may replace it. Any other is someone else's: the official chart's ServiceAccount pinot,
// which every Pinot component runs as, replaced by the boost's would lose its token.
const (
	ownLabel      = "app.kubernetes.io/name"
	ownLabelValue = "pinot-broker-warmup"
)

func owned(o find.Object) bool { return o.Metadata.Labels[ownLabel] == ownLabelValue }

// sameObject: one object to the API server: the same kind in the same API group (its versions
// are views of one object), namespace and name. An input object without a namespace goes to the
// release's namespace, which a post-renderer cannot tell from the StatefulSet's: taken as the same.
func sameObject(existing, added find.Object) bool {
	return existing.Kind == added.Kind && apiGroup(existing.APIVersion) == apiGroup(added.APIVersion) &&
		existing.Metadata.Name == added.Metadata.Name &&
		(existing.Metadata.Namespace == added.Metadata.Namespace || existing.Metadata.Namespace == "")
}

// apiGroup is the group of an apiVersion ("" for the core group's "v1").
func apiGroup(apiVersion string) string {
	if i := strings.LastIndex(apiVersion, "/"); i >= 0 {
		return apiVersion[:i]
	}
	return ""
}

// describeObject is "Kind namespace/name", as kubectl names it.
func describeObject(o find.Object) string {
	if o.Metadata.Namespace == "" {
		return o.Kind + " " + o.Metadata.Name
	}
	return o.Kind + " " + o.Metadata.Namespace + "/" + o.Metadata.Name
}

// collisionErr refuses to replace docs[i], an object inject does not own, with one the boost of
// statefulSet adds: both named, with where each came from and what to change.
func collisionErr(docs []find.Manifest, i int, added find.Object, statefulSet string) error {
	existing := docs[i]
	where := fmt.Sprintf("document %d, line %d", i+1, existing.Line)
	if src := sourceComment(existing.Body); src != "" {
		where += ", " + src
	}
	fix := fmt.Sprintf("rename the manifests' %s (the boost names its %s after the StatefulSet), or turn brokerCpuBoost off", existing.Obj.Kind, added.Kind)
	if added.Kind == "ServiceAccount" {
		fix = "set brokerCpuBoost.serviceAccount.name to a name the manifests do not use, or serviceAccount.create: false to bind the Role to a ServiceAccount that exists"
	}
	return fmt.Errorf("brokerCpuBoost of StatefulSet %s adds %s, and the manifests on stdin already hold %s (%s) without the label %s: %s: "+
		"warmup-inject replaces only its own objects: %s",
		statefulSet, describeObject(added), describeObject(existing.Obj), where, ownLabel, ownLabelValue, fix)
}

// sourceComment is the "# Source: <template>" line Helm opens each document with, or "".
func sourceComment(body string) string {
	for _, line := range strings.Split(body, "\n") {
		if strings.HasPrefix(line, "# Source: ") {
			return line
		}
	}
	return ""
}
