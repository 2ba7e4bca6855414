//go:build kube

package node

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"github.com/warmup-sidecar/warmup-sidecar/e2e/kube/controlplane"
	"github.com/warmup-sidecar/warmup-sidecar/e2e/kube/launch"
	"github.com/warmup-sidecar/warmup-sidecar/e2e/kube/podnet"
)

// The tests share one control plane (it takes seconds to start); each runs its own agent on its
// own node, deleted when the test ends so the scheduler never binds a pod to a stopped agent.
var testNodes = []string{"node-a", "node-probe", "node-grace", "node-cpu", "node-left", "node-stop"}

var shared struct {
	once sync.Once
	cp   *controlplane.ControlPlane
	dir  string
	err  error
}

func sharedControlPlane(t *testing.T) *controlplane.ControlPlane {
	t.Helper()
	shared.once.Do(func() {
		shared.dir, shared.err = os.MkdirTemp("", "node-test-cp-")
		if shared.err != nil {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		shared.cp, shared.err = controlplane.Start(ctx, controlplane.Options{Dir: shared.dir, Nodes: testNodes})
	})
	if shared.err != nil {
		t.Fatalf("control plane: %v", shared.err)
	}
	return shared.cp
}

func stopSharedControlPlane() {
	if shared.cp != nil {
		shared.cp.Stop()
	}
	if shared.dir != "" {
		_ = os.RemoveAll(shared.dir)
	}
}

type bed struct {
	cp    *controlplane.ControlPlane
	admin kubernetes.Interface
	agent *Agent
	node  string
	dir   string // the agent's Dir
	// stopAgent cancels the agent and returns Run's error (once; later calls return the same).
	stopAgent func() error
	stop      func()
}

// startBed runs an agent for node (one of testNodes) with the helper image; its pods' host ports
// are a free range of 200. stop (deferred by the caller) stops the agent, fails the test if any cgroup
// or process is left behind, removes the test bed's cgroup root and deletes the Node.
func startBed(t *testing.T, node string) *bed {
	t.Helper()
	cp := sharedControlPlane(t)
	admin, err := cp.Client(controlplane.UserAdmin)
	if err != nil {
		t.Fatal(err)
	}
	nodeClient, err := cp.Client(controlplane.NodeUser(node))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	apiPort := cp.Server[strings.LastIndex(cp.Server, ":")+1:]
	agent, err := New(Options{
		Name: node, Client: nodeClient, Dir: filepath.Join(dir, "node"), Launchers: launch.Registry{"testbed/http": helperLauncher{}},
		Net: podnet.New(freePorts(t, 200), 10), CgroupRoot: fmt.Sprintf("warmup-testbed-test-%s-%d", node, os.Getpid()),
		CPU: resource.MustParse("2"), Memory: resource.MustParse("8Gi"), APIHost: "127.0.0.1", APIPort: apiPort,
		Version: "v1.36.1", Log: testLog(),
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- agent.Run(ctx) }()
	b := &bed{cp: cp, admin: admin, agent: agent, node: node, dir: filepath.Join(dir, "node")}
	var once sync.Once
	var runErr error
	b.stopAgent = func() error {
		once.Do(func() {
			cancel()
			runErr = <-done
		})
		return runErr
	}
	b.stop = func() {
		if err := b.stopAgent(); err != nil {
			t.Errorf("agent: %v", err)
		}
		groups, pids := agent.Leftovers()
		if len(groups) > 0 || len(pids) > 0 {
			t.Errorf("left behind: cgroups %v, processes %v", groups, pids)
		}
		if err := agent.Close(); err != nil {
			t.Errorf("removing the test bed's cgroup root: %v", err)
		}
		if err := admin.CoreV1().Nodes().Delete(context.Background(), node, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			t.Errorf("deleting node %s: %v", node, err)
		}
	}
	return b
}

// freePorts is the first of n consecutive loopback ports nobody listens on now, from 20000 (below
// the ephemeral range; other test beds on the machine take fixed ranges, so look rather than fix one).
func freePorts(t *testing.T, n int) int {
	t.Helper()
	for base := 20000 + rand.IntN(40)*n; base+n < 32768; base += n {
		free := true
		for p := base; p < base+n && free; p++ {
			l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", p))
			if err != nil {
				free = false
				continue
			}
			l.Close()
		}
		if free {
			return base
		}
	}
	t.Fatalf("no %d free consecutive ports between 20000 and 32768", n)
	return 0
}

// testLog is the agent's log: to stderr with NODE_TEST_LOG=1 (debugging a timing), else nowhere.
func testLog() *slog.Logger {
	if os.Getenv("NODE_TEST_LOG") == "1" {
		return slog.New(slog.NewTextHandler(os.Stderr, nil))
	}
	return nil
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

// namespace creates ns and waits for its default ServiceAccount (pod admission needs it).
func (b *bed) namespace(t *testing.T, ns string) {
	t.Helper()
	ctx := context.Background()
	if _, err := b.admin.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "default ServiceAccount in "+ns, 30*time.Second, func() (bool, error) {
		_, err := b.admin.CoreV1().ServiceAccounts(ns).Get(ctx, "default", metav1.GetOptions{})
		return err == nil, err
	})
}

// helperPod is a pod of one helper container "app" (port http 8080) bound to the bed's node, with
// a 2 s grace period; env is NAME=VALUE pairs.
func (b *bed) helperPod(ns, name string, env ...string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: corev1.PodSpec{
			NodeName: b.node, TerminationGracePeriodSeconds: ptr.To[int64](2), AutomountServiceAccountToken: ptr.To(false),
			Containers: []corev1.Container{helperContainer("app", 8080, env...)},
		},
	}
}

// helperContainer is a helper container serving port (named "http" if 8080, the main one's).
func helperContainer(name string, port int32, env ...string) corev1.Container {
	c := corev1.Container{Name: name, Image: "testbed/http:1", Ports: []corev1.ContainerPort{{ContainerPort: port}}}
	if port == 8080 {
		c.Ports[0].Name = "http"
	} else {
		env = append(env, fmt.Sprintf("HELPER_PORT=%d", port))
	}
	for _, e := range env {
		k, v, _ := strings.Cut(e, "=")
		c.Env = append(c.Env, corev1.EnvVar{Name: k, Value: v})
	}
	return c
}

// slack is what a timing check allows beyond the rule's bound: status patches, the watch, a
// loaded 2-core machine. Lower bounds (never before the rule allows) get none.
const slack = 2 * time.Second

// deletePod deletes pod and waits until the agent has stopped it and removed the object.
func (b *bed) deletePod(t *testing.T, pod *corev1.Pod, l *podLog) {
	t.Helper()
	if err := b.admin.CoreV1().Pods(pod.Namespace).Delete(context.Background(), pod.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatalf("delete %s: %v", pod.Name, err)
	}
	l.goneAt(t, time.Minute)
}

// eventsPath is where the helper container ctr of pod writes its events.
func (b *bed) eventsPath(pod *corev1.Pod, ctr string) string {
	return filepath.Join(b.dir, "pods", pod.Namespace+"_"+pod.Name+"_"+string(pod.UID), "containers", ctr, "events")
}

func (b *bed) events(t *testing.T, pod *corev1.Pod, ctr string) []helperEvent {
	t.Helper()
	evs, err := readEvents(b.eventsPath(pod, ctr))
	if err != nil {
		t.Fatalf("events of %s/%s: %v", pod.Name, ctr, err)
	}
	return evs
}

// startedAt is when the agent started ctr's current instance (what the status's
// state.running.startedAt reports, to the nanosecond), and the instance's id.
func (b *bed) startedAt(t *testing.T, uid types.UID, ctr string) (time.Time, string) {
	t.Helper()
	b.agent.mu.Lock()
	w := b.agent.workers[uid]
	b.agent.mu.Unlock()
	if w == nil {
		t.Fatalf("no worker for pod %s", uid)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, c := range w.ctrs {
		if c.spec.Name == ctr {
			return c.startedAt, c.id
		}
	}
	t.Fatalf("pod %s has no container %s", uid, ctr)
	return time.Time{}, ""
}

// secs formats a duration in seconds for messages.
func secs(d time.Duration) string { return fmt.Sprintf("%.2fs", d.Seconds()) }
