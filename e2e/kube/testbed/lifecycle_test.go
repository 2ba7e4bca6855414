//go:build kube

package testbed

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
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

// TestHelmLifecycle is the operator's path through the real API server and controllers:
// install the official chart without the sidecar, turn it on and off again by helm upgrade
// (the StatefulSet controller rolls the brokers each time), uninstall, and nothing is left: no
// pods, no controller revisions, no cgroups, no processes. What the chart grants the pods'
// ServiceAccount is checked by the API server's authorizer.
func TestHelmLifecycle(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 25*time.Minute)
	defer cancel()
	pb := startPinotBed(t, ctx, "")
	values := filepath.Join(pb.dir, "values.yaml")
	if err := (BrokerValues{Replicas: 2, CPURequest: "500m", CPULimit: "1", ReadinessDelay: 5}).Write(pb.pinot, values); err != nil {
		t.Fatal(err)
	}
	inject := filepath.Join(pb.dir, "warmup-values.yaml")
	if err := os.WriteFile(inject, []byte("warmup:\n  budget: 10s\n"), 0o644); err != nil {
		t.Fatal(err)
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

	// ON: the post-renderer adds the sidecar; the StatefulSet controller replaces every pod.
	on := rel
	on.Inject, on.InjectValues = true, []string{inject}
	if out, err := pb.helm.Upgrade(ctx, on); err != nil {
		t.Fatalf("helm upgrade (sidecar on): %v\n%s", err, out)
	}
	pods = pb.brokersRolled(t, ctx, 2, true, uids(pods))
	for _, p := range pods {
		u, err := pb.PodURL(&p, 9095)
		if err != nil {
			t.Fatal(err)
		}
		code, body, err := Get(ctx, u+"/status")
		if err != nil || code != 200 || !strings.Contains(body, `"phase"`) {
			t.Errorf("%s sidecar /status: %d %v %.300s", p.Name, code, err, body)
		}
	}
	pb.queryEach(t, ctx, pods)

	// What the pods' ServiceAccount may do, by the API server's authorizer: nothing in the
	// namespace the chart does not grant.
	for _, verb := range [][]string{{"get", "pods"}, {"list", "secrets"}, {"patch", "pods/resize"}} {
		out, err := exec.CommandContext(ctx, pb.CP.Kubectl(), "--kubeconfig", pb.Kubeconfig(), "auth", "can-i",
			verb[0], verb[1], "-n", ns, "--as", "system:serviceaccount:"+ns+":pinot").CombinedOutput()
		if strings.TrimSpace(string(out)) != "no" || err == nil {
			t.Errorf("kubectl auth can-i %s %s as the broker pods' ServiceAccount: %q (%v), want no", verb[0], verb[1], out, err)
		}
	}

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
			t.Errorf("%s entered the Service %d times, want 3 (install, on, off): events %+v", p.Name, entered[ns+"/"+p.Name], svc.Proxy.Events())
		}
	}

	if out, err := pb.helm.Uninstall(ctx, release, ns); err != nil {
		t.Fatalf("helm uninstall: %v\n%s", err, out)
	}
	err = WaitFor(ctx, "nothing left after helm uninstall", 2*time.Minute, func() (bool, string) {
		p, err := pb.Admin.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err.Error()
		}
		cr, err := pb.Admin.AppsV1().ControllerRevisions(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err.Error()
		}
		groups, pids := pb.Agent.Leftovers()
		return len(p.Items) == 0 && len(cr.Items) == 0 && len(groups) == 0 && len(pids) == 0,
			fmt.Sprintf("%d pods, %d controller revisions, cgroups %v, processes %v", len(p.Items), len(cr.Items), groups, pids)
	})
	if err != nil {
		t.Fatal(err)
	}
}

func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := cluster.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	return root
}
