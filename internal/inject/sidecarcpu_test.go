package inject

import (
	"testing"

	"github.com/warmup-sidecar/warmup-sidecar/internal/inject/find"
)

// A broker without a CPU request or limit (the official chart's default) gets a sidecar without a
// CPU request: the pod weighs what the broker alone did. A broker with a CPU request or limit keeps
// the sidecar's 50m. Both routes (the post-renderer, the values route) render the same container.
func TestSidecarCPURequestFollowsTheBroker(t *testing.T) {
	for _, tc := range []struct {
		name  string
		pinot string // the official chart's values
		want  any    // the sidecar's resources.requests.cpu
	}{
		{"the chart's broker (no CPU)", "", nil},
		{"a CPU request and limit", "broker:\n  resources: {requests: {cpu: \"1\", memory: 1.25Gi}, limits: {cpu: \"2\"}}\n", "50m"},
		{"a CPU limit only", "broker:\n  resources: {requests: {memory: 1.25Gi}, limits: {cpu: \"2\"}}\n", "50m"},
	} {
		plain := renderOfficial(t, yamlMap(t, tc.pinot))
		overlay, _ := runValuesRoute(t, plain, "enabled: true\n")
		for route, stream := range map[string]string{
			"post-renderer": mustInject(t, plain, "--kube-version", "1.34.0"),
			"values route":  string(renderOfficial(t, yamlMap(t, tc.pinot), yamlMap(t, overlay))),
		} {
			sts := officialBrokers(objects(t, stream))[0]
			c := containerNamed(sts, "containers", find.SidecarContainer)
			if c == nil {
				c = containerNamed(sts, "initContainers", find.SidecarContainer)
			}
			if got := k8sObject(c).get("resources", "requests", "cpu"); got != tc.want {
				t.Errorf("%s, %s: the sidecar's CPU request %v, want %v", tc.name, route, got, tc.want)
			}
			if mem := k8sObject(c).get("resources", "requests", "memory"); mem != "32Mi" {
				t.Errorf("%s, %s: the sidecar's memory request %v, want the chart's 32Mi", tc.name, route, mem)
			}
		}
	}
}
