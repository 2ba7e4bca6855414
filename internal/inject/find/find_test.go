package find

import "testing"

// The official chart's broker is found by what no value renames (its chart label and container
// name); other charts' StatefulSets with a "broker" container, and the official chart's other
// components, are not.
func TestMatchBroker(t *testing.T) {
	sts := func(chart, name string) statefulSet {
		var s statefulSet
		s.Spec.Template.Metadata.Labels = map[string]string{"app": "olap", "component": "query", chartLabel: chart}
		s.Spec.Template.Spec.Containers = []container{{Name: name}}
		return s
	}
	obj := Object{APIVersion: "apps/v1", Kind: "StatefulSet"}
	defaults := map[string]string{"app": "pinot", "component": "broker"}
	for _, tc := range []struct {
		name      string
		obj       Object
		sts       statefulSet
		labels    map[string]string
		want      brokerMatch
		container string
	}{
		{"official chart renamed", obj, sts("pinot-0.3.6-SNAPSHOT", "broker"), defaults, byOfficialChart, "broker"},
		{"labels win", obj, sts("pinot-0.3.6-SNAPSHOT", "broker"), map[string]string{"app": "olap"}, byLabels, "pinot-broker"},
		{"official server", obj, sts("pinot-0.3.6-SNAPSHOT", "server"), defaults, notBroker, ""},
		{"another chart", obj, sts("pinot-broker-warmup-0.1.0", "broker"), defaults, notBroker, ""},
		{"no chart label", obj, sts("", "broker"), defaults, notBroker, ""},
		{"a Deployment", Object{APIVersion: "apps/v1", Kind: "Deployment"}, sts("pinot-1.0.0", "broker"), defaults, notBroker, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, c := matchBroker(tc.obj, tc.sts, tc.labels, "pinot-broker")
			if m != tc.want || c != tc.container {
				t.Errorf("matchBroker = %v, %q; want %v, %q", m, c, tc.want, tc.container)
			}
		})
	}
}
