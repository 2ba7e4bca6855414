//go:build kube

package testbed

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/warmup-sidecar/warmup-sidecar/e2e/cluster"
	"github.com/warmup-sidecar/warmup-sidecar/e2e/kube/proxy"
)

const (
	ns            = "pinot"
	release       = "pinot"
	brokerSel     = "app=pinot,component=broker"
	sidecarName   = "warmup-sidecar"
	brokerQueryPt = 8099
)

// pinotBed is the harness's Pinot cluster (its own broker stopped: the chart's brokers serve) and
// the test bed with the Pinot and sidecar launchers.
type pinotBed struct {
	*Bed
	pinot *cluster.Cluster
	helm  *Helm
	dir   string
}

// startPinotBed starts the harness and the test bed; java, if set, is the brokers' JVM.
func startPinotBed(t *testing.T, ctx context.Context, java string) *pinotBed {
	t.Helper()
	dir := t.TempDir()
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	c, err := cluster.Start(ctx, cluster.Options{BasePort: 31000, Logger: log, WorkDir: filepath.Join(dir, "pinot")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Stop() })
	b, h, err := StartPinot(ctx, PinotOptions{Dir: dir, Cluster: c, Java: java, Log: log})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := b.Stop(); err != nil {
			t.Error(err)
		}
	})
	return &pinotBed{Bed: b, pinot: c, helm: h, dir: dir}
}

// brokersRolled waits until every broker pod is Ready with the containers want (the sidecar
// either a main container or a native sidecar) and none of the UIDs in old.
func (pb *pinotBed) brokersRolled(t *testing.T, ctx context.Context, replicas int, sidecar bool, old map[types.UID]bool) []corev1.Pod {
	t.Helper()
	var pods []corev1.Pod
	err := WaitFor(ctx, "brokers rolled", 5*time.Minute, func() (bool, string) {
		var err error
		if pods, err = pb.Pods(ctx, ns, brokerSel); err != nil {
			return false, err.Error()
		}
		if len(pods) != replicas {
			return false, fmt.Sprintf("%d pods", len(pods))
		}
		for _, p := range pods {
			if old[p.UID] || !Ready(&p) || hasSidecar(&p) != sidecar || p.DeletionTimestamp != nil {
				return false, fmt.Sprintf("%s: old %v ready %v sidecar %v", p.Name, old[p.UID], Ready(&p), hasSidecar(&p))
			}
		}
		return true, ""
	})
	if err != nil {
		t.Fatal(err)
	}
	return pods
}

func hasSidecar(p *corev1.Pod) bool {
	for _, c := range append(append([]corev1.Container{}, p.Spec.Containers...), p.Spec.InitContainers...) {
		if c.Name == sidecarName {
			return true
		}
	}
	return false
}

func uids(pods []corev1.Pod) map[types.UID]bool {
	m := map[types.UID]bool{}
	for _, p := range pods {
		m[p.UID] = true
	}
	return m
}

// queryEach runs a query on every broker pod.
func (pb *pinotBed) queryEach(t *testing.T, ctx context.Context, pods []corev1.Pod) {
	t.Helper()
	for _, p := range pods {
		u, err := pb.PodURL(&p, brokerQueryPt)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := cluster.CountAt(ctx, u, cluster.TableBoth); err != nil {
			t.Errorf("%s: %v", p.Name, err)
		}
	}
}

// TestHelmLifecycle is the operator's path through the real API server and controllers, on
// Helm 4: install the official chart without the sidecar, turn it on through the chart's own
// values (the values route: the gate deciding, the CPU boost), then off again by helm upgrade (the
// StatefulSet controller rolls the brokers each time), uninstall, and nothing is left: no pods, no
// controller revisions, no cgroups, no processes. While the sidecar holds its gate a pod whose
// broker is healthy stays out of the Service's EndpointSlice; a pod whose broker stops answering
// /health leaves it. What the chart and the companion grant the pods' ServiceAccount is checked by
// the API server's authorizer. Then the two post-renderer routes install once each: Helm 3's
// executable and Helm 4's plugin.
func TestHelmLifecycle(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 35*time.Minute)
	defer cancel()
	pb := startPinotBed(t, ctx, "")
	values := filepath.Join(pb.dir, "values.yaml")
	if err := (BrokerValues{Replicas: 2, CPURequest: "500m", CPULimit: "1", ReadinessDelay: 5}).Write(pb.pinot, values); err != nil {
		t.Fatal(err)
	}
	write := func(name, body string) string {
		p := filepath.Join(pb.dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	rel := Release{Name: release, Namespace: ns, Values: []string{values}, Wait: true}

	if out, err := pb.helm.Install(ctx, rel); err != nil {
		t.Fatalf("helm install: %v\n%s", err, out)
	}
	pods := pb.brokersRolled(t, ctx, 2, false, nil)
	for _, p := range pods {
		cpu, err := pb.Agent.CgroupCPU(p.UID, "broker")
		if err != nil {
			t.Fatal(err)
		}
		if cpu.QuotaUs != 100_000 || cpu.Shares != 512 {
			t.Errorf("%s broker cgroup %+v: want the chart's limit 1 CPU (quota 100000) and request 500m (shares 512)", p.Name, cpu)
		}
	}
	pb.queryEach(t, ctx, pods)

	// A client of the chart's broker Service: the service proxy follows its EndpointSlices.
	svc, err := pb.Service(ctx, ServiceOptions{Namespace: ns, Name: "pinot-broker", PortName: "broker", Slots: 4, Dir: pb.dir})
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Stop()
	if err := svc.WaitInRotation(ctx, 2, 30*time.Second); err != nil {
		t.Fatalf("both brokers in the Service's rotation: %v", err)
	}
	if _, err := cluster.CountAt(ctx, svc.URL(), cluster.TableBoth); err != nil {
		t.Errorf("through the Service: %v", err)
	}

	// ON, the values route: the gate decides, the boost gives its CPU back once the gate opens,
	// and a floor no broker reaches holds the gate shut until its 30 s budget opens it: long
	// enough to see a healthy broker kept out of the Service by its sidecar alone.
	on := rel
	on.Wait = false // the pods are watched while they warm
	on.Sidecar, on.WarmupValues = ValuesRoute, []string{write("warmup-on.yaml", "warmup:\n  budget: 30s\n  exit: floor\n  minIterations: 10000000\n"+
		"brokerReadiness:\n  decidedBy: sidecar\nbrokerCpuBoost:\n  enabled: true\n  cpu:\n    limit: 1500m\n  settle: 0s\n")}
	if out, err := pb.helm.Upgrade(ctx, on); err != nil {
		t.Fatalf("helm upgrade (sidecar on, values route): %v\n%s", err, out)
	}
	pb.heldOutWhileWarming(t, ctx, uids(pods))
	pods = pb.brokersRolled(t, ctx, 2, true, uids(pods))
	for _, p := range pods {
		pb.givenBack(t, ctx, p.Name, "1")
	}
	pb.queryEach(t, ctx, pods)

	// What the pods' ServiceAccount may do, by the API server's authorizer: the companion's Role
	// lets it read and resize the broker pods by name, and nothing else in the namespace.
	for _, c := range []struct {
		verb, resource, want string
	}{{"get", "pods", "no"}, {"list", "secrets", "no"}, {"patch", "pods/resize", "no"}, {"patch", "pods/pinot-broker-0", "no"},
		{"get", "pods/pinot-broker-0", "yes"}, {"patch", "pods/pinot-broker-1 --subresource=resize", "yes"}} {
		args := append([]string{"--kubeconfig", pb.Kubeconfig(), "auth", "can-i", c.verb}, strings.Fields(c.resource)...)
		out, _ := exec.CommandContext(ctx, pb.CP.Kubectl(), append(args, "-n", ns, "--as", "system:serviceaccount:"+ns+":pinot")...).CombinedOutput()
		if got := strings.TrimSpace(string(out)); got != c.want {
			t.Errorf("kubectl auth can-i %s %s as the broker pods' ServiceAccount: %q, want %s", c.verb, c.resource, got, c.want)
		}
	}

	// A broker that stops answering /health leaves the Service through its sidecar's verdict.
	pb.leavesWhenTheBrokerDies(t, ctx, pods[0])
	pods = pb.brokersRolled(t, ctx, 2, true, nil)

	// OFF again: a plain upgrade renders the chart without the sidecar.
	if out, err := pb.helm.Upgrade(ctx, rel); err != nil {
		t.Fatalf("helm upgrade (sidecar off): %v\n%s", err, out)
	}
	pods = pb.brokersRolled(t, ctx, 2, false, uids(pods))
	pb.queryEach(t, ctx, pods)
	if _, err := cluster.CountAt(ctx, svc.URL(), cluster.TableBoth); err != nil {
		t.Errorf("through the Service after two rollouts: %v", err)
	}
	// Every rollout took each pod out of the Service and put its replacement in.
	entered := map[string]int{}
	for _, e := range svc.Proxy.Events() {
		if e.Kind == proxy.KindEnter {
			entered[e.Pod]++
		}
	}
	for _, p := range pods {
		if entered[ns+"/"+p.Name] < 3 {
			t.Errorf("%s entered the Service %d times, want 3 or more (install, on, off): events %+v", p.Name, entered[ns+"/"+p.Name], svc.Proxy.Events())
		}
	}
	pb.uninstalled(t, ctx)

	// The post-renderer routes, one install each.
	one := filepath.Join(pb.dir, "values-1.yaml")
	if err := (BrokerValues{Replicas: 1, CPURequest: "500m", CPULimit: "1", ReadinessDelay: 5}).Write(pb.pinot, one); err != nil {
		t.Fatal(err)
	}
	for _, route := range []Route{ExecRoute, PluginRoute} {
		r := Release{Name: release, Namespace: ns, Values: []string{one}, Wait: true, Sidecar: route,
			WarmupValues: []string{write("warmup-route.yaml", "warmup:\n  budget: 10s\n")}}
		if out, err := pb.helm.Install(ctx, r); err != nil {
			t.Fatalf("helm install (%s): %v\n%s", route, err, out)
		}
		pb.queryEach(t, ctx, pb.brokersRolled(t, ctx, 1, true, nil))
		pb.uninstalled(t, ctx)
	}
}

// heldOutWhileWarming waits for a new broker pod whose broker container is Ready (its /health
// answers 200) while its sidecar is not (the gate is shut), and checks that the pod is then
// neither Ready nor a ready endpoint of the Service's EndpointSlices.
func (pb *pinotBed) heldOutWhileWarming(t *testing.T, ctx context.Context, old map[types.UID]bool) {
	t.Helper()
	var held *corev1.Pod
	err := WaitFor(ctx, "a new broker pod healthy with its gate shut", 4*time.Minute, func() (bool, string) {
		pods, err := pb.Pods(ctx, ns, brokerSel)
		if err != nil {
			return false, err.Error()
		}
		for i, p := range pods {
			if !old[p.UID] && containerReady(&p, "broker") && !containerReady(&p, sidecarName) && p.Status.PodIP != "" {
				held = &pods[i]
				return true, ""
			}
		}
		return false, fmt.Sprintf("%d pods", len(pods))
	})
	if err != nil {
		t.Fatal(err)
	}
	u, err := pb.PodURL(held, brokerQueryPt)
	if err != nil {
		t.Fatal(err)
	}
	if code, body, err := Get(ctx, u+"/health"); err != nil || code != 200 {
		t.Errorf("%s broker /health: %d %q %v, want 200 (the broker healthy)", held.Name, code, body, err)
	}
	if Ready(held) {
		t.Errorf("%s is Ready while its sidecar is not", held.Name)
	}
	if ready, listed := pb.endpointReady(t, ctx, held.Status.PodIP); ready {
		t.Errorf("%s (%s) is a ready endpoint of the Service while its gate is shut (listed %v)", held.Name, held.Status.PodIP, listed)
	}
	t.Logf("%s: broker /health 200 and Ready, sidecar not: out of the Service's EndpointSlice", held.Name)
}

// leavesWhenTheBrokerDies kills the pod's broker JVM (its /health refuses from then on) and
// waits for the pod to stop being a ready endpoint; the kubelet's stand-in restarts the broker.
func (pb *pinotBed) leavesWhenTheBrokerDies(t *testing.T, ctx context.Context, p corev1.Pod) {
	t.Helper()
	if ready, _ := pb.endpointReady(t, ctx, p.Status.PodIP); !ready {
		t.Fatalf("%s is not a ready endpoint before its broker dies", p.Name)
	}
	pid := 0
	for _, cs := range p.Status.ContainerStatuses {
		if cs.Name == "broker" {
			fmt.Sscanf(strings.TrimPrefix(cs.ContainerID, "testbed://"), "%d", &pid)
		}
	}
	if pid <= 0 {
		t.Fatalf("%s: no broker pid in its container status", p.Name)
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatalf("killing %s's broker (pid %d): %v", p.Name, pid, err)
	}
	killed := time.Now()
	if err := WaitFor(ctx, p.Name+" out of the EndpointSlice", time.Minute, func() (bool, string) {
		ready, listed := pb.endpointReady(t, ctx, p.Status.PodIP)
		return !ready, fmt.Sprintf("ready %v, listed %v", ready, listed)
	}); err != nil {
		t.Fatal(err)
	}
	t.Logf("%s left the Service's EndpointSlice %s after its broker was killed", p.Name, time.Since(killed).Round(time.Second))
}

// endpointReady says whether ip is a ready endpoint of the broker Service's EndpointSlices, and
// whether it is listed at all.
func (pb *pinotBed) endpointReady(t *testing.T, ctx context.Context, ip string) (ready, listed bool) {
	t.Helper()
	slices, err := pb.Admin.DiscoveryV1().EndpointSlices(ns).List(ctx, metav1.ListOptions{LabelSelector: "kubernetes.io/service-name=pinot-broker"})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range slices.Items {
		for _, e := range s.Endpoints {
			for _, a := range e.Addresses {
				if a == ip {
					listed = true
					ready = ready || e.Conditions.Ready == nil || *e.Conditions.Ready
				}
			}
		}
	}
	return ready, listed
}

// givenBack waits for the pod's sidecar to report the boost given back and the broker
// container's CPU limit back to limit.
func (pb *pinotBed) givenBack(t *testing.T, ctx context.Context, name, limit string) {
	t.Helper()
	err := WaitFor(ctx, name+" boost given back", 3*time.Minute, func() (bool, string) {
		p, err := pb.Admin.CoreV1().Pods(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		u, err := pb.PodURL(p, 9095)
		if err != nil {
			return false, err.Error()
		}
		_, body, _ := Get(ctx, u+"/status")
		var st struct {
			Boost struct{ State, Reason string } `json:"broker_cpu_boost"`
		}
		_ = json.Unmarshal([]byte(body), &st)
		lim := ""
		for _, c := range p.Spec.Containers {
			if c.Name == "broker" {
				lim = c.Resources.Limits.Cpu().String()
			}
		}
		return st.Boost.State == "given_back" && lim == limit, fmt.Sprintf("state %q (%s), broker CPU limit %s", st.Boost.State, st.Boost.Reason, lim)
	})
	if err != nil {
		t.Error(err)
	}
}

// uninstalled uninstalls the release (and its companion) and waits until nothing is left.
func (pb *pinotBed) uninstalled(t *testing.T, ctx context.Context) {
	t.Helper()
	if out, err := pb.helm.Uninstall(ctx, release, ns); err != nil {
		t.Fatalf("helm uninstall: %v\n%s", err, out)
	}
	err := WaitFor(ctx, "nothing left after helm uninstall", 2*time.Minute, func() (bool, string) {
		p, err := pb.Admin.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err.Error()
		}
		cr, err := pb.Admin.AppsV1().ControllerRevisions(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err.Error()
		}
		roles, err := pb.Admin.RbacV1().Roles(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err.Error()
		}
		groups, pids := pb.Agent.Leftovers()
		return len(p.Items) == 0 && len(cr.Items) == 0 && len(roles.Items) == 0 && len(groups) == 0 && len(pids) == 0,
			fmt.Sprintf("%d pods, %d controller revisions, %d roles, cgroups %v, processes %v", len(p.Items), len(cr.Items), len(roles.Items), groups, pids)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// containerReady: the pod's container (or native sidecar) of that name reports ready.
func containerReady(p *corev1.Pod, name string) bool {
	for _, cs := range append(append([]corev1.ContainerStatus{}, p.Status.ContainerStatuses...), p.Status.InitContainerStatuses...) {
		if cs.Name == name {
			return cs.Ready
		}
	}
	return false
}

func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := cluster.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	return root
}
