//go:build kube

package boostapi

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/warmup-sidecar/warmup-sidecar/pkg/kubeapi"
)

const (
	neighbour = "pinot-broker-1"
	// policy is how the API server names the denial's source.
	policy = "ValidatingAdmissionPolicy 'pinot.pinot-broker-warmup-cpu-boost'"
	// Two replicas, each boosted from request 1 / limit 2 to request 2 / limit 4.
	twoBoosted = "brokerCpuBoost:\n  enabled: true\n  cpu:\n    request: \"2\"\n    limit: \"4\"\n  maxReplicas: 2\n"
)

// tokenClient is a client-go client holding the token in dir: what a compromised sidecar could
// send beyond the sidecar's own CPU patch.
func (b *bed) tokenClient(t *testing.T, dir string) kubernetes.Interface {
	t.Helper()
	token, err := os.ReadFile(filepath.Join(dir, "token"))
	if err != nil {
		t.Fatal(err)
	}
	c, err := kubernetes.NewForConfig(&rest.Config{Host: b.cp.Server, BearerToken: string(token),
		TLSClientConfig: rest.TLSClientConfig{CAFile: filepath.Join(dir, "ca.crt")}})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// resize patches a pod's resize subresource (strategic merge), as dry run when asked.
func resize(ctx context.Context, c kubernetes.Interface, pod, patch string, dryRun bool) error {
	opts := metav1.PatchOptions{}
	if dryRun {
		opts.DryRun = []string{metav1.DryRunAll}
	}
	_, err := c.CoreV1().Pods(ns).Patch(ctx, pod, types.StrategicMergePatchType, []byte(patch), opts, "resize")
	return err
}

// waitPolicy waits until the policy is in force, which is once the API server's policy informer
// has it: until it refuses the patch as a dry run.
func waitPolicy(ctx context.Context, t *testing.T, c kubernetes.Interface, pod, patch string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		err := resize(ctx, c, pod, patch, true)
		if err != nil && strings.Contains(err.Error(), policy) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the policy never refused %s on %s: last %v", patch, pod, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func brokerPatch(resources string) string {
	return `{"spec":{"containers":[{"name":"broker",` + resources + `}]}}`
}

// The admission policy warmup-inject renders beside the Role, on the real API server. The Role
// lets the boost's ServiceAccount resize both broker pods; the policy lets a sidecar's token,
// bound to its pod as the kubelet asks for it, resize only that pod's broker CPU, between the
// broker's own and the boost. Each refusal is the policy's (its name, its message, 403 worded
// unlike RBAC's), and the refused pods are unchanged.
func TestPolicyConfinesTheResizeToTheSidecarsOwnPod(t *testing.T) {
	b := startBedWith(t, twoBoosted, podName, neighbour)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	ownDir := b.tokenDir(t, boostSA, podName)
	own, raw := b.clientFor(t, ownDir, podName), b.tokenClient(t, ownDir)

	waitPolicy(ctx, t, raw, podName, brokerPatch(`"resources":{"requests":{"memory":"2Gi"}}`))

	refusedBy := func(what string, err error, words ...string) {
		t.Helper()
		if err == nil {
			t.Errorf("%s: allowed, want the policy's refusal", what)
			return
		}
		var ae *kubeapi.Error
		forbidden := apierrors.IsForbidden(err) || (errors.As(err, &ae) && ae.Forbidden())
		if !forbidden || !strings.Contains(err.Error(), policy) {
			t.Errorf("%s: %v, want 403 from %s", what, err, policy)
		}
		for _, w := range words {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %v, want it to say %q", what, err, w)
			}
		}
		// The sidecar reads an admission refusal as final, not as missing RBAC.
		if strings.Contains(err.Error(), "cannot ") && strings.Contains(err.Error(), "resource ") {
			t.Errorf("%s: %v reads like RBAC's denial", what, err)
		}
	}

	// The neighbour's broker, within the bounds, by the sidecar's own client code (which shortens
	// the message) and in full.
	_, err := b.clientFor(t, ownDir, neighbour).ResizeCPU(ctx, "broker", kubeapi.CPU{Request: "1", Limit: "2"})
	refusedBy("resizing the neighbour", err, "its own pod")
	refusedBy("resizing the neighbour", resize(ctx, raw, neighbour, brokerPatch(`"resources":{"limits":{"cpu":"3"}}`), false),
		"bound to pod "+podName+", not to "+neighbour)
	// The same with a token bound to no pod (a TokenRequest without BoundObjectRef).
	_, err = b.clientFor(t, b.tokenDir(t, boostSA, ""), podName).ResizeCPU(ctx, "broker", kubeapi.CPU{Request: "1", Limit: "2"})
	refusedBy("a token bound to no pod", err, "bound to no pod")
	// Its own pod, beyond the broker's CPU between its own and the boost.
	refusedBy("its broker's memory", resize(ctx, raw, podName, brokerPatch(`"resources":{"requests":{"memory":"2Gi"}}`), false), "memory")
	refusedBy("the sidecar container's CPU", resize(ctx, raw, podName,
		`{"spec":{"containers":[{"name":"warmup-sidecar","resources":{"requests":{"cpu":"100m"}}}]}}`, false), "only the broker container's CPU")
	refusedBy("the pod's own resources", resize(ctx, raw, podName, `{"spec":{"resources":{"limits":{"cpu":"6"}}}}`, false),
		"only the broker container's CPU")
	_, err = own.ResizeCPU(ctx, "broker", kubeapi.CPU{Request: "1", Limit: "1500m"})
	refusedBy("a CPU limit below the broker's own", err, "between 2 (its own) and 4 (the boost)", "not 1500m")
	_, err = own.ResizeCPU(ctx, "broker", kubeapi.CPU{Limit: "5"})
	refusedBy("a CPU limit above the boost", err, "between 2 (its own) and 4 (the boost)")
	_, err = own.ResizeCPU(ctx, "broker", kubeapi.CPU{Request: "3"})
	refusedBy("a CPU request above the boost", err, "between 1 (its own) and 2 (the boost)")
	_, err = own.ResizeCPU(ctx, "broker", kubeapi.CPU{Request: "500m"})
	refusedBy("a CPU request below the broker's own", err, "between 1 (its own) and 2 (the boost)")

	for _, name := range []string{podName, neighbour} {
		p, err := b.admin.CoreV1().Pods(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]corev1.ResourceList{
			"broker":         {corev1.ResourceCPU: resource.MustParse("2"), corev1.ResourceMemory: resource.MustParse("1.25Gi")},
			"warmup-sidecar": {corev1.ResourceCPU: resource.MustParse("50m"), corev1.ResourceMemory: resource.MustParse("32Mi")},
		}
		for _, c := range p.Spec.Containers {
			for k, q := range want[c.Name] {
				if got := c.Resources.Requests[k]; got.Cmp(q) != 0 {
					t.Errorf("%s: container %s's %s request %s after the refusals, want %s", name, c.Name, k, got.String(), q.String())
				}
			}
		}
	}

	// What the sidecar does: its own broker, part way, then back to its own CPU.
	for _, cpu := range []kubeapi.CPU{{Request: "1500m", Limit: "3"}, {Request: "1", Limit: "2"}} {
		pod, err := own.ResizeCPU(ctx, "broker", cpu)
		if err != nil {
			t.Fatalf("resizing its own broker to %+v: %v", cpu, err)
		}
		broker, _ := pod.Container("broker")
		if req, lim := broker.Resources.CPU(); req != cpu.Request || lim != cpu.Limit {
			t.Errorf("after the resize to %+v the broker has %+v", cpu, broker.Resources)
		}
	}
	// Requests from anyone else are not the policy's: the admin resizes the neighbour at will.
	if err := resize(ctx, b.admin, neighbour, brokerPatch(`"resources":{"requests":{"memory":"2Gi"}}`), false); err != nil {
		t.Errorf("the admin's resize of the neighbour's memory: %v", err)
	}
}

// With serviceAccount.create false the Role is bound to the official chart's pinot, which every
// Pinot component runs as: the policy holds each of them to its own pod. A server pod's token
// (RBAC lets it resize the broker) is refused; the broker pod's own sidecar may give back.
func TestPolicyHoldsASharedServiceAccountToItsOwnPod(t *testing.T) {
	b := startBedWith(t, boostYAML+"  serviceAccount:\n    create: false\n", podName)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	server := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "pinot-server-0", Namespace: ns}, Spec: corev1.PodSpec{
		ServiceAccountName: chartSA, NodeName: fakeNode,
		Containers: []corev1.Container{{Name: "server", Image: "apachepinot/pinot:1.5.1"}},
	}}
	if _, err := b.admin.CoreV1().Pods(ns).Create(ctx, server, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	serverDir := b.tokenDir(t, chartSA, server.Name)
	// RBAC allows it: the Role is bound to the ServiceAccount, not to a pod.
	if out := b.kubectl(t, "auth can-i", "", "auth", "can-i", "-n", ns, "--as=system:serviceaccount:"+ns+":"+chartSA,
		"patch", "pods/"+podName, "--subresource=resize"); strings.TrimSpace(out) != "yes" {
		t.Fatalf("can-i %q, want yes", out)
	}
	serverClient := b.tokenClient(t, serverDir)
	patch := brokerPatch(`"resources":{"limits":{"cpu":"2"}}`)
	waitPolicy(ctx, t, serverClient, podName, patch)
	err := resize(ctx, serverClient, podName, patch, false)
	if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), policy) || !strings.Contains(err.Error(), "bound to pod pinot-server-0, not to "+podName) {
		t.Fatalf("the server pod's token resizing the broker: %v, want the policy's 403", err)
	}
	pod, err := b.clientFor(t, b.tokenDir(t, chartSA, podName), podName).ResizeCPU(ctx, "broker", kubeapi.CPU{Limit: "2"})
	if err != nil {
		t.Fatalf("the broker pod's own give-back: %v", err)
	}
	if broker, _ := pod.Container("broker"); broker.Resources.Limits["cpu"] != "2" {
		t.Errorf("after the give-back the broker has %+v", broker.Resources)
	}
}
