//go:build kube

package boostapi

import (
	"bytes"
	"context"
	"errors"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/yaml"

	"github.com/warmup-sidecar/warmup-sidecar/e2e/kube/controlplane"
	"github.com/warmup-sidecar/warmup-sidecar/internal/cpuboost"
	"github.com/warmup-sidecar/warmup-sidecar/internal/inject"
	"github.com/warmup-sidecar/warmup-sidecar/internal/report"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/kubeapi"
)

const (
	ns        = "pinot"
	podName   = "pinot-broker-0"
	boostSA   = "pinot-broker-warmup"
	chartSA   = "pinot" // the official chart's, shared by every Pinot component
	fakeNode  = "boost-node"
	fixture   = "../../../testdata/pinot-helm/cpu-limits.yaml"
	boostYAML = "brokerCpuBoost:\n  enabled: true\n  cpu:\n    limit: \"4\"\n"
)

// bed is the control plane with warmup-inject's output for the official chart (a broker with a
// CPU request 1 and limit 2, boosted) applied: the namespace, both ServiceAccounts, the Role and
// RoleBinding, the admission policy and its binding, and broker pods made from the StatefulSet's
// template.
type bed struct {
	cp    *controlplane.ControlPlane
	admin kubernetes.Interface
	out   string // warmup-inject's output
}

// kubeVersion is the test bed's, which warmup-inject is told (the boost needs 1.33).
const kubeVersion = "v1.36.1"

// boostObjects are the kinds warmup-inject adds beside the pods (and the chart's ServiceAccount).
var boostObjects = map[string]bool{"ServiceAccount": true, "Role": true, "RoleBinding": true,
	"ValidatingAdmissionPolicy": true, "ValidatingAdmissionPolicyBinding": true}

func startBed(t *testing.T) *bed { return startBedWith(t, boostYAML, podName) }

// startBedWith injects with the values, applies the objects and creates the named pods.
func startBedWith(t *testing.T, values string, pods ...string) *bed {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cp, err := controlplane.Start(ctx, controlplane.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cp.Stop)
	admin, err := cp.Client(controlplane.UserAdmin)
	if err != nil {
		t.Fatal(err)
	}
	in, err := os.ReadFile(fixture)
	if err != nil {
		t.Fatal(err)
	}
	valuesFile := filepath.Join(t.TempDir(), "values.yaml")
	if err := os.WriteFile(valuesFile, []byte(values), 0o600); err != nil {
		t.Fatal(err)
	}
	var out, stderr bytes.Buffer
	if code := inject.Main([]string{"--values", valuesFile, "--kube-version", kubeVersion}, bytes.NewReader(in), &out, &stderr); code != 0 {
		t.Fatalf("warmup-inject: exit %d: %s", code, stderr.String())
	}
	b := &bed{cp: cp, admin: admin, out: out.String()}
	if _, err := admin.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// What the boost adds, and the chart's own ServiceAccount, applied as an operator would.
	var apply []string
	kinds := map[string]int{}
	for _, doc := range strings.Split(b.out, "\n---\n") {
		var o struct {
			Kind     string                `json:"kind"`
			Metadata struct{ Name string } `json:"metadata"`
		}
		if yaml.Unmarshal([]byte(doc), &o) != nil {
			continue
		}
		if boostObjects[o.Kind] {
			apply = append(apply, doc)
			kinds[o.Kind]++
		}
	}
	for kind := range boostObjects {
		if kinds[kind] == 0 || (kind != "ServiceAccount" && kinds[kind] != 1) {
			t.Fatalf("warmup-inject's output has %v, want one of each kind but ServiceAccount (the chart's, and the boost's unless shared)", kinds)
		}
	}
	b.kubectl(t, "apply", strings.Join(apply, "\n---\n"), "apply", "-f", "-")
	// A Node object for the pod's node, with no kubelet behind it: the API server's resize
	// admission refuses a pod whose node it does not know (403 "node ... not found").
	// Its allocatable CPU and memory too: the resize admission refuses a resize whose pod does not
	// fit the node's allocatable (403 "node didn't have enough allocatable resources").
	if _, err := admin.CoreV1().Nodes().Create(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: fakeNode}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	room := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("8"), corev1.ResourceMemory: resource.MustParse("16Gi"), corev1.ResourcePods: resource.MustParse("110")}
	// The control plane's controllers write the new node too: its status is set on the latest.
	err = retry.RetryOnConflict(retry.DefaultRetry, func() error {
		node, err := admin.CoreV1().Nodes().Get(ctx, fakeNode, metav1.GetOptions{})
		if err != nil {
			return err
		}
		node.Status.Capacity, node.Status.Allocatable = room, room
		// And what a v1.36 kubelet declares of its features: the API server refuses (403) a resize
		// of the pod-level resources on a node that does not declare it.
		node.Status.DeclaredFeatures = []string{"InPlacePodLevelResourcesVerticalScaling"}
		_, err = admin.CoreV1().Nodes().UpdateStatus(ctx, node, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		t.Fatalf("the node's status: %v", err)
	}
	for _, name := range pods {
		if _, err := admin.CoreV1().Pods(ns).Create(ctx, b.brokerPod(t, name), metav1.CreateOptions{}); err != nil {
			t.Fatalf("creating broker pod %s from the injected StatefulSet: %v", name, err)
		}
	}
	return b
}

// brokerPod is the injected StatefulSet's pod template as the named pod, bound to a node by name.
func (b *bed) brokerPod(t *testing.T, name string) *corev1.Pod {
	t.Helper()
	for _, doc := range strings.Split(b.out, "\n---\n") {
		if !strings.Contains(doc, "kind: StatefulSet") || !strings.Contains(doc, "name: pinot-broker\n") {
			continue
		}
		var sts struct {
			Spec struct {
				Template corev1.PodTemplateSpec `json:"template"`
			} `json:"spec"`
		}
		if err := yaml.Unmarshal([]byte(doc), &sts); err != nil {
			t.Fatal(err)
		}
		pod := &corev1.Pod{ObjectMeta: sts.Spec.Template.ObjectMeta, Spec: sts.Spec.Template.Spec}
		pod.Name, pod.Namespace = name, ns
		pod.Spec.NodeName = fakeNode
		return pod
	}
	t.Fatal("no broker StatefulSet in warmup-inject's output")
	return nil
}

// kubectl runs the test bed's kubectl as the admin; stdin when given.
func (b *bed) kubectl(t *testing.T, what, stdin string, args ...string) string {
	t.Helper()
	out, err := b.kubectlErr(stdin, args...)
	if err != nil {
		t.Fatalf("kubectl %s: %v\n%s", what, err, out)
	}
	return out
}

func (b *bed) kubectlErr(stdin string, args ...string) (string, error) {
	cmd := exec.Command(b.cp.Kubectl(), append([]string{"--kubeconfig", b.cp.Kubeconfig(controlplane.UserAdmin)}, args...)...)
	cmd.Stdin = strings.NewReader(stdin)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// The Role warmup-inject renders, asked of the API server's authorizer: the boost's
// ServiceAccount may read the broker pod and patch its resize subresource, and nothing else;
// the chart's ServiceAccount (every other Pinot pod's) may not resize it.
func TestRBACIsTheResizeAndNothingMore(t *testing.T) {
	b := startBed(t)
	as := func(sa string) string { return "--as=system:serviceaccount:" + ns + ":" + sa }
	for _, c := range []struct {
		sa   string
		args []string
		want bool
	}{
		{boostSA, []string{"patch", "pods/" + podName, "--subresource=resize"}, true},
		{boostSA, []string{"get", "pods/" + podName}, true},
		{boostSA, []string{"patch", "pods/pinot-broker-1", "--subresource=resize"}, false}, // one replica
		{boostSA, []string{"patch", "pods/pinot-server-0", "--subresource=resize"}, false},
		{boostSA, []string{"patch", "pods/" + podName}, false}, // the spec itself
		{boostSA, []string{"update", "pods/" + podName, "--subresource=resize"}, false},
		{boostSA, []string{"patch", "pods/" + podName, "--subresource=status"}, false},
		{boostSA, []string{"list", "pods"}, false},
		{boostSA, []string{"watch", "pods"}, false},
		{boostSA, []string{"delete", "pods/" + podName}, false},
		{boostSA, []string{"get", "secrets"}, false},
		{boostSA, []string{"patch", "pods/" + podName, "--subresource=resize", "-n", "default"}, false},
		{chartSA, []string{"patch", "pods/" + podName, "--subresource=resize"}, false},
		{chartSA, []string{"get", "pods/" + podName}, false},
	} {
		args := append([]string{"auth", "can-i", "-n", ns, as(c.sa)}, c.args...)
		if c.args[len(c.args)-2] == "-n" {
			args = append([]string{"auth", "can-i", as(c.sa)}, c.args...)
		}
		out, err := b.kubectlErr("", args...)
		got := err == nil && strings.TrimSpace(out) == "yes"
		var ee *exec.ExitError
		if err != nil && !(errors.As(err, &ee) && strings.TrimSpace(out) == "no") {
			t.Fatalf("kubectl %v: %v\n%s", args, err, out)
		}
		if got != c.want {
			t.Errorf("%s can-i %v: %v, want %v", c.sa, c.args, got, c.want)
		}
	}
}

// saDir is a ServiceAccount directory as the kubelet projects it for pod -0: a token the API
// server issued for sa (bound to the pod when the pod runs as sa), and the cluster CA.
func (b *bed) saDir(t *testing.T, sa string) string {
	t.Helper()
	pod, err := b.admin.CoreV1().Pods(ns).Get(context.Background(), podName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if sa != pod.Spec.ServiceAccountName { // the API server binds a token only to a pod of its ServiceAccount
		return b.tokenDir(t, sa, "")
	}
	return b.tokenDir(t, sa, podName)
}

// tokenDir is a ServiceAccount directory with a token for sa, bound to the named pod as the
// kubelet's token manager asks for it (BoundObjectRef with the pod's UID), or to none ("").
func (b *bed) tokenDir(t *testing.T, sa, boundTo string) string {
	t.Helper()
	ctx := context.Background()
	exp := int64(600)
	spec := authenticationv1.TokenRequestSpec{ExpirationSeconds: &exp}
	if boundTo != "" {
		pod, err := b.admin.CoreV1().Pods(ns).Get(ctx, boundTo, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		spec.BoundObjectRef = &authenticationv1.BoundObjectReference{Kind: "Pod", APIVersion: "v1", Name: boundTo, UID: pod.UID}
	}
	tr, err := b.admin.CoreV1().ServiceAccounts(ns).CreateToken(ctx, sa, &authenticationv1.TokenRequest{Spec: spec}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("token for %s: %v", sa, err)
	}
	dir := t.TempDir()
	ca, err := os.ReadFile(b.cp.CAFile)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "ca.crt"), ca, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "token"), []byte(tr.Status.Token), 0o600); err != nil {
		t.Fatal(err)
	}
	return dir
}

// client is the sidecar's client in pod -0, as the kubelet sets its environment.
func (b *bed) client(t *testing.T, sa string) *kubeapi.Client {
	t.Helper()
	return b.clientFor(t, b.saDir(t, sa), podName)
}

// clientFor is the sidecar's client with the token in dir, resizing the named pod.
func (b *bed) clientFor(t *testing.T, dir, pod string) *kubeapi.Client {
	t.Helper()
	u, err := url.Parse(b.cp.Server)
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"KUBERNETES_SERVICE_HOST": u.Hostname(), "KUBERNETES_SERVICE_PORT": u.Port()}
	c, err := kubeapi.InCluster(func(k string) string { return env[k] }, dir, ns, pod, "warmup-sidecar/kube-test")
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// The sidecar's REST calls on the real API server: it reads its pod, and its resize of the
// broker container's CPU back to the target through the resize subresource is accepted and
// stored, the other resources untouched; a resize the API server finds invalid is refused as
// such, and the chart's ServiceAccount is forbidden.
func TestResizeThroughTheRealAPIServer(t *testing.T) {
	b := startBed(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c := b.client(t, boostSA)
	pod, err := c.GetPod(ctx)
	if err != nil {
		t.Fatal(err)
	}
	broker, ok := pod.Container("broker")
	if req, lim := broker.Resources.CPU(); !ok || req != "1" || lim != "4" {
		t.Fatalf("the created pod's broker CPU %+v, want request 1 (kept) and limit 4 (boosted)", broker.Resources)
	}
	if pod.Status.QOSClass != "Burstable" {
		t.Errorf("QoS class %q", pod.Status.QOSClass)
	}

	var e *kubeapi.Error
	_, err = c.ResizeCPU(ctx, "broker", kubeapi.CPU{Request: "3", Limit: "2"})
	if !errors.As(err, &e) || e.Status != 422 || !e.Permanent() {
		t.Errorf("a request above its limit: %v, want 422 Invalid", err)
	}

	pod, err = c.ResizeCPU(ctx, "broker", kubeapi.CPU{Limit: "2"})
	if err != nil {
		t.Fatalf("the give-back resize: %v", err)
	}
	broker, _ = pod.Container("broker")
	// The API server stores quantities in canonical form: 1.25Gi is 1280Mi.
	if req, lim := broker.Resources.CPU(); req != "1" || lim != "2" || broker.Resources.Requests["memory"] != "1280Mi" {
		t.Errorf("after the resize the broker has %+v, want CPU request 1, limit 2, memory kept", broker.Resources)
	}
	stored, err := b.admin.CoreV1().Pods(ns).Get(ctx, podName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if lim := stored.Spec.Containers[0].Resources.Limits[corev1.ResourceCPU]; lim.Cmp(resource.MustParse("2")) != 0 {
		t.Errorf("stored broker CPU limit %s, want 2", lim.String())
	}

	_, err = b.client(t, chartSA).ResizeCPU(ctx, "broker", kubeapi.CPU{Limit: "3"})
	if !errors.As(err, &e) || !e.Forbidden() || !strings.Contains(e.Message, `cannot patch resource "pods/resize"`) {
		t.Errorf("the chart's ServiceAccount: %v, want 403 naming pods/resize", err)
	}
}

// recorder keeps the runner's statuses.
type recorder struct {
	mu  sync.Mutex
	all []report.CPUBoostStatus
}

func (r *recorder) Set(s report.CPUBoostStatus) { r.mu.Lock(); r.all = append(r.all, s); r.mu.Unlock() }
func (r *recorder) last() report.CPUBoostStatus {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.all) == 0 {
		return report.CPUBoostStatus{}
	}
	return r.all[len(r.all)-1]
}

type openGate struct{}

func (openGate) IsOpen() bool { return true }

// The give-back end to end on the real API server: the runner resizes, waits for the kubelet's
// report (here written by the test, as the node agent would: the container's applied
// resources in the pod's status) and then says given_back.
func TestGiveBackRunsAgainstTheRealAPIServer(t *testing.T) {
	b := startBed(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	rec := &recorder{}
	r := &cpuboost.Runner{
		Settings: cpuboost.Settings{Container: "broker", Target: kubeapi.CPU{Limit: "2"}, MaxDuration: 10 * time.Minute, Settle: 0, Tick: 50 * time.Millisecond,
			NoJITNote: "WARMUP_JVM_METRICS_URL is empty"},
		Pods: b.client(t, boostSA), Gate: openGate{}, Report: rec,
	}
	done := make(chan struct{})
	go func() { _ = r.Run(ctx); close(done) }()
	waitFor(t, "the resize accepted, waiting for a kubelet", func() bool {
		s := rec.last()
		return s.State == cpuboost.StateGivingBack && strings.Contains(s.Reason, "waiting for the kubelet")
	}, rec)
	// The kubelet's report: the broker container runs at the target.
	pod, err := b.admin.CoreV1().Pods(ns).Get(ctx, podName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pod.Status.Phase = corev1.PodRunning
	pod.Status.ContainerStatuses = []corev1.ContainerStatus{{
		Name: "broker", Image: pod.Spec.Containers[0].Image, ImageID: "docker-pullable://apachepinot/pinot@sha256:0",
		Ready: true, State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: metav1.Now()}},
		AllocatedResources: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")},
		Resources: &corev1.ResourceRequirements{
			Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")},
			Limits:   corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2")},
		},
	}}
	if _, err := b.admin.CoreV1().Pods(ns).UpdateStatus(ctx, pod, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("writing the kubelet's report: %v", err)
	}
	waitFor(t, "given_back", func() bool { return rec.last().State == cpuboost.StateGivenBack }, rec)
	<-done
	if s := rec.last(); s.Applied == nil || s.Applied.Limit != "2" || !strings.Contains(s.GiveBackBecause, "settle time") {
		t.Errorf("final %+v", s)
	}
}

func waitFor(t *testing.T, what string, ok func() bool, rec *recorder) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("never %s; last status %+v", what, rec.last())
		}
		time.Sleep(100 * time.Millisecond)
	}
}
