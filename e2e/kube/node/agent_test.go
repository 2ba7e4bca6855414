//go:build kube

package node

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
)

// TestStatefulSetOnTheNode: the real scheduler and StatefulSet controller place two pods on the
// agent; each runs in a cgroup with its CPU limit, turns Ready by its readiness probe, appears
// ready in its Service's EndpointSlice; an in-place resize reaches the cgroup and the status; the
// StatefulSet's deletion stops every process and removes every cgroup.
func TestStatefulSetOnTheNode(t *testing.T) {
	b := startBed(t, "node-a")
	defer b.stop()
	ctx := context.Background()
	ns := "testbed"
	if _, err := b.admin.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	labels := map[string]string{"app": "web"}
	sts := &appsv1.StatefulSet{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: ns},
		Spec: appsv1.StatefulSetSpec{
			Replicas: ptr.To[int32](2), ServiceName: "web", PodManagementPolicy: appsv1.ParallelPodManagement,
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{
					TerminationGracePeriodSeconds: ptr.To[int64](5),
					Containers: []corev1.Container{{
						Name: "web", Image: "testbed/http:1",
						Env:   []corev1.EnvVar{{Name: "TERM_DELAY", Value: "1s"}, {Name: "POD", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.name"}}}},
						Ports: []corev1.ContainerPort{{Name: "http", ContainerPort: 8080}},
						ReadinessProbe: &corev1.Probe{
							ProbeHandler:  corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/healthz", Port: intstr.FromString("http")}},
							PeriodSeconds: 1, FailureThreshold: 1, SuccessThreshold: 1, TimeoutSeconds: 1,
						},
						Resources: corev1.ResourceRequirements{
							Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("250m")},
							Limits:   corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("500m")},
						},
						ResizePolicy: []corev1.ContainerResizePolicy{{ResourceName: corev1.ResourceCPU, RestartPolicy: corev1.NotRequired}},
					}},
				},
			},
		},
	}
	if _, err := b.admin.AppsV1().StatefulSets(ns).Create(ctx, sts, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: ns}, Spec: corev1.ServiceSpec{
		Selector: labels, Ports: []corev1.ServicePort{{Name: "http", Port: 80, TargetPort: intstr.FromString("http")}},
	}}
	if _, err := b.admin.CoreV1().Services(ns).Create(ctx, svc, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	var pods []corev1.Pod
	waitFor(t, "2 pods Ready", time.Minute, func() (bool, error) {
		l, err := b.admin.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		ready := 0
		for _, p := range l.Items {
			for _, c := range p.Status.Conditions {
				if c.Type == corev1.PodReady && c.Status == corev1.ConditionTrue {
					ready++
				}
			}
		}
		pods = l.Items
		return ready == 2, fmt.Errorf("%d ready", ready)
	})
	for _, p := range pods {
		cpu, err := b.agent.CgroupCPU(p.UID, "web")
		if err != nil {
			t.Fatal(err)
		}
		if cpu.QuotaUs != 50000 || cpu.Shares != 256 {
			t.Errorf("%s: cgroup %+v, want quota 50000 µs (500m) and shares 256 (250m)", p.Name, cpu)
		}
		if !strings.HasPrefix(p.Status.PodIP, "10.244.0.") {
			t.Errorf("%s: pod IP %q", p.Name, p.Status.PodIP)
		}
	}
	waitFor(t, "both endpoints ready in the Service's EndpointSlice", 30*time.Second, func() (bool, error) {
		l, err := b.admin.DiscoveryV1().EndpointSlices(ns).List(ctx, metav1.ListOptions{LabelSelector: discoveryv1.LabelServiceName + "=web"})
		if err != nil {
			return false, err
		}
		n := 0
		for _, s := range l.Items {
			for _, e := range s.Endpoints {
				if e.Conditions.Ready != nil && *e.Conditions.Ready {
					n++
				}
			}
		}
		return n == 2, fmt.Errorf("%d ready endpoints", n)
	})

	// In-place resize through the real API server's resize subresource.
	p0 := pods[0]
	patch := []byte(`{"spec":{"containers":[{"name":"web","resources":{"limits":{"cpu":"1"},"requests":{"cpu":"500m"}}}]}}`)
	if _, err := b.admin.CoreV1().Pods(ns).Patch(ctx, p0.Name, types.StrategicMergePatchType, patch, metav1.PatchOptions{}, "resize"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "resize applied to the cgroup and reported", 20*time.Second, func() (bool, error) {
		cpu, err := b.agent.CgroupCPU(p0.UID, "web")
		if err != nil {
			return false, err
		}
		p, err := b.admin.CoreV1().Pods(ns).Get(ctx, p0.Name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		st := p.Status.ContainerStatuses[0].Resources
		return cpu.QuotaUs == 100000 && st != nil && st.Limits.Cpu().MilliValue() == 1000, fmt.Errorf("cgroup %+v, status %+v", cpu, st)
	})
	// A resize the node cannot fit beside the other pod (1900m + 250m > 2 CPUs) waits, Deferred.
	// (One above the node's capacity the API server itself refuses.)
	patch = []byte(`{"spec":{"containers":[{"name":"web","resources":{"limits":{"cpu":"1900m"},"requests":{"cpu":"1900m"}}}]}}`)
	if _, err := b.admin.CoreV1().Pods(ns).Patch(ctx, p0.Name, types.StrategicMergePatchType, patch, metav1.PatchOptions{}, "resize"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "deferred resize reported as PodResizePending", 20*time.Second, func() (bool, error) {
		p, err := b.admin.CoreV1().Pods(ns).Get(ctx, p0.Name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		for _, c := range p.Status.Conditions {
			if c.Type == corev1.PodResizePending && c.Reason == corev1.PodReasonDeferred {
				return true, nil
			}
		}
		return false, fmt.Errorf("conditions %v", p.Status.Conditions)
	})
	if cpu, _ := b.agent.CgroupCPU(p0.UID, "web"); cpu.QuotaUs != 100000 {
		t.Errorf("after a deferred resize the cgroup is %+v, want it unchanged (100000)", cpu)
	}

	if err := b.admin.AppsV1().StatefulSets(ns).Delete(ctx, "web", metav1.DeleteOptions{PropagationPolicy: ptr.To(metav1.DeletePropagationForeground)}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "every pod gone", time.Minute, func() (bool, error) {
		l, err := b.admin.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		return len(l.Items) == 0, fmt.Errorf("%d pods", len(l.Items))
	})
	groups, pids := b.agent.Leftovers()
	if len(groups) > 0 || len(pids) > 0 {
		t.Errorf("after the pods are gone: cgroups %v, processes %v", groups, pids)
	}
}
