package node

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// The pod cgroup's CPU as the kubelet sets it (pkg/kubelet/cm ResourceConfigForPod over
// component-helpers' PodRequests and PodLimits, KEP-753's formula): main containers and sidecars
// add up; a regular init container counts with the sidecars started before it and the pod takes
// the larger; a quota only when every container declared a CPU limit (cpuLimitsDeclared, checked
// on what each init container counts with).
func TestPodCPU(t *testing.T) {
	type ctr struct {
		kind       containerKind
		req, limit string // "" none
	}
	cases := []struct {
		name string
		ctrs []ctr
		want CPU
	}{
		{"one container", []ctr{{kindMain, "500m", "1"}}, CPU{Shares: 512, QuotaUs: 100_000}},
		{"best effort", []ctr{{kindMain, "", ""}}, CPU{Shares: 2, QuotaUs: -1}},
		{"a main container without a limit: no quota", []ctr{{kindMain, "500m", "1"}, {kindMain, "100m", ""}}, CPU{Shares: 614, QuotaUs: -1}},
		{"a sidecar adds up", []ctr{{kindSidecar, "100m", "200m"}, {kindMain, "500m", "1"}}, CPU{Shares: 614, QuotaUs: 120_000}},
		{"an init container without a limit: no quota", []ctr{{kindInit, "100m", ""}, {kindMain, "500m", "500m"}}, CPU{Shares: 512, QuotaUs: -1}},
		{"an init container above the main ones: its own", []ctr{{kindInit, "1", "2"}, {kindMain, "250m", "500m"}}, CPU{Shares: 1024, QuotaUs: 200_000}},
		{"an init container counts the sidecars before it", []ctr{{kindSidecar, "200m", "200m"}, {kindInit, "1", "1"}, {kindMain, "500m", "500m"}},
			CPU{Shares: 1228, QuotaUs: 120_000}},
		{"a sidecar without a limit: no quota", []ctr{{kindSidecar, "100m", ""}, {kindMain, "500m", "500m"}}, CPU{Shares: 614, QuotaUs: -1}},
		// cpuLimitsDeclared looks at the sidecars' running sum: a later sidecar without a limit
		// still counts as declared.
		{"a later sidecar without a limit, after one with", []ctr{{kindSidecar, "100m", "100m"}, {kindSidecar, "100m", ""}, {kindMain, "500m", "500m"}},
			CPU{Shares: 716, QuotaUs: 60_000}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := &podWorker{allocated: map[string]corev1.ResourceRequirements{}}
			for i, c := range tc.ctrs {
				name := string(rune('a' + i))
				r := corev1.ResourceRequirements{Requests: corev1.ResourceList{}, Limits: corev1.ResourceList{}}
				if c.req != "" {
					r.Requests[corev1.ResourceCPU] = resource.MustParse(c.req)
				}
				if c.limit != "" {
					r.Limits[corev1.ResourceCPU] = resource.MustParse(c.limit)
				}
				w.ctrs = append(w.ctrs, &container{spec: &corev1.Container{Name: name}, kind: c.kind})
				w.allocated[name] = r
			}
			if got := w.podCPU(); got != tc.want {
				t.Errorf("pod cgroup %+v, want %+v", got, tc.want)
			}
		})
	}
}
