package find

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
)

// The official chart renders these into every broker pod whatever nameOverride,
// fullnameOverride, broker.name or the release name are: the chart label carries .Chart.Name
// ("pinot"; no value changes it) and the container's name is a literal of its template. Its app
// and component labels are values (nameOverride, broker.name), so brokerPodLabels alone miss a
// renamed release.
const (
	chartLabel              = "helm.sh/chart"
	OfficialBrokerContainer = "broker"
)

// officialChartLabel is "pinot-<version>" (a chart named pinot-something-else does not match).
var officialChartLabel = regexp.MustCompile(`^pinot-v?[0-9]`)

// brokerMatch is how a StatefulSet was recognised as a broker.
type brokerMatch int

const (
	notBroker       brokerMatch = iota
	byLabels                    // its pod template carries every brokerPodLabels
	byOfficialChart             // the official chart's broker pod, its labels renamed
)

// matchBroker tells whether a StatefulSet is a broker and names the broker's container in it.
// Pod labels rather than the StatefulSet's own, because the pod is what the sidecar joins and
// what the PodMonitor selects.
func matchBroker(obj Object, sts statefulSet, podLabels map[string]string, containerName string) (brokerMatch, string) {
	if obj.Kind != "StatefulSet" || !strings.HasPrefix(obj.APIVersion, "apps/") {
		return notBroker, ""
	}
	labels := sts.Spec.Template.Metadata.Labels
	if hasLabels(labels, podLabels) {
		return byLabels, containerName
	}
	if officialChartLabel.MatchString(labels[chartLabel]) {
		for _, c := range sts.Spec.Template.Spec.Containers {
			if c.Name == OfficialBrokerContainer {
				return byOfficialChart, OfficialBrokerContainer
			}
		}
	}
	return notBroker, ""
}

func hasLabels(labels, want map[string]string) bool {
	for k, v := range want {
		if labels[k] != v {
			return false
		}
	}
	return true
}

// noBrokerErr: with the sidecar enabled, a stream without a broker is an error, since Helm
// shows a post-renderer's stderr only when it fails: passing through would install the release
// without a sidecar and without a word.
func noBrokerErr(podLabels map[string]string) error {
	return fmt.Errorf("no broker StatefulSet in the manifests: looked for pod labels %s "+
		"(brokerPodLabels in the values; the official chart sets app from nameOverride and component from broker.name) "+
		"and for the official chart's broker pod (label %s: pinot-<version> and a container named %q): "+
		"set brokerPodLabels to the broker pods' labels, or enabled: false to pass the manifests through unchanged",
		formatLabels(podLabels), chartLabel, OfficialBrokerContainer)
}

// DescribeMatch is what the log line says of a broker found as the official chart's but not by
// brokerPodLabels: the chart's PodMonitor selects by those labels and would miss its pods.
func DescribeMatch(t Broker, podLabels map[string]string) string {
	if t.match != byOfficialChart {
		return ""
	}
	have := map[string]string{}
	for k := range podLabels {
		have[k] = t.Labels[k]
	}
	return fmt.Sprintf(", found as the official chart's broker: its pod labels %s are not brokerPodLabels %s, "+
		"which pinot-broker-warmup's PodMonitor selects", formatLabels(have), formatLabels(podLabels))
}

// formatLabels writes labels as k=v, sorted.
func formatLabels(labels map[string]string) string {
	keys := make([]string, 0, len(labels))
	for k := range labels {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + labels[k]
	}
	return strings.Join(parts, ", ")
}
