//go:build kube

package node

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"github.com/warmup-sidecar/warmup-sidecar/e2e/kube/controlplane"
	"github.com/warmup-sidecar/warmup-sidecar/e2e/kube/launch"
	"github.com/warmup-sidecar/warmup-sidecar/e2e/kube/podnet"
)

// The test binary doubles as the test image's process: with TESTBED_HELPER=http it serves 200 on
// /healthz at PORT, and on SIGTERM waits TERM_DELAY before exiting (a broker draining).
func TestMain(m *testing.M) {
	if os.Getenv("TESTBED_HELPER") == "http" {
		serveHelper()
		return
	}
	os.Exit(m.Run())
}

func serveHelper() {
	srv := &http.Server{Addr: "127.0.0.1:" + os.Getenv("PORT"), ReadHeaderTimeout: time.Second}
	http.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) })
	go srv.ListenAndServe()
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM)
	<-sig
	d, _ := time.ParseDuration(os.Getenv("TERM_DELAY"))
	time.Sleep(d)
	os.Exit(0)
}

// helperLauncher runs the test binary as image testbed/http, serving the container's first port.
type helperLauncher struct{}

func (helperLauncher) Process(c launch.Container) (launch.Process, error) {
	port := 8080
	hp, err := c.Net.HostPort(int32(port))
	if err != nil {
		return launch.Process{}, err
	}
	env := append(append([]string{}, c.Env...), "TESTBED_HELPER=http", "PORT="+strconv.Itoa(hp))
	return launch.Process{Argv: []string{os.Args[0]}, Env: env, Dir: c.Dir}, nil
}

type bed struct {
	cp    *controlplane.ControlPlane
	admin kubernetes.Interface
	agent *Agent
	stop  func()
}

func startBed(t *testing.T) *bed {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	dir := t.TempDir()
	startCtx, startCancel := context.WithTimeout(ctx, 2*time.Minute)
	defer startCancel()
	cp, err := controlplane.Start(startCtx, controlplane.Options{Dir: dir + "/cp", Nodes: []string{"node-a"}})
	if err != nil {
		t.Fatal(err)
	}
	admin, _ := cp.Client(controlplane.UserAdmin)
	nodeClient, err := cp.Client(controlplane.NodeUser("node-a"))
	if err != nil {
		t.Fatal(err)
	}
	apiPort := cp.Server[strings.LastIndex(cp.Server, ":")+1:]
	agent, err := New(Options{
		Name: "node-a", Client: nodeClient, Dir: dir + "/node", Launchers: launch.Registry{"testbed/http": helperLauncher{}},
		Net: podnet.New(26000, 10), CgroupRoot: fmt.Sprintf("warmup-testbed-test-%d", os.Getpid()),
		CPU: resource.MustParse("2"), Memory: resource.MustParse("8Gi"), APIHost: "127.0.0.1", APIPort: apiPort,
		Version: "v1.36.1",
	})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- agent.Run(ctx) }()
	b := &bed{cp: cp, admin: admin, agent: agent}
	b.stop = func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("agent: %v", err)
		}
		groups, pids := agent.Leftovers()
		if len(groups) > 0 || len(pids) > 0 {
			t.Errorf("left behind: cgroups %v, processes %v", groups, pids)
		}
		agent.Close()
		cp.Stop()
	}
	return b
}

func waitFor(t *testing.T, what string, d time.Duration, f func() (bool, error)) {
	t.Helper()
	deadline := time.Now().Add(d)
	var last error
	for time.Now().Before(deadline) {
		ok, err := f()
		if ok {
			return
		}
		last = err
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("%s: not within %s (last error %v)", what, d, last)
}

// TestStatefulSetOnTheNode: the real scheduler and StatefulSet controller place two pods on the
// agent; each runs in a cgroup with its CPU limit, turns Ready by its readiness probe, appears
// ready in its Service's EndpointSlice; an in-place resize reaches the cgroup and the status; the
// StatefulSet's deletion stops every process and removes every cgroup.
func TestStatefulSetOnTheNode(t *testing.T) {
	b := startBed(t)
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
