// Package node is the test bed's stand-in for the kubelet: a node agent that registers a Node,
// runs the pods bound to it as processes (each image through a launcher, each pod in its own
// cgroup with its containers' CPU request and limit), runs their probes by the kubelet's rules,
// writes their status, stops them on deletion as the kubelet does, and applies in-place resizes to
// their cgroups. Each rule sits next to the kubelet behaviour it follows; docs/testbed.md lists
// them and what is left out.
package node

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"

	"github.com/warmup-sidecar/warmup-sidecar/e2e/kube/launch"
	"github.com/warmup-sidecar/warmup-sidecar/e2e/kube/podnet"
)

// Options configure an Agent.
type Options struct {
	Name   string // the Node's name
	Client kubernetes.Interface
	// Dir holds each pod's volumes, container dirs and logs: <Dir>/pods/<namespace>_<name>_<uid>.
	Dir       string
	Launchers launch.Registry
	Net       *podnet.Network
	// CgroupRoot names the test bed's group under /sys/fs/cgroup/{cpu,cpuacct}.
	CgroupRoot string
	// CPU and Memory are the Node's capacity (allocatable equals capacity: nothing is reserved).
	CPU, Memory resource.Quantity
	// APIHost, APIPort are the kubernetes Service's address as pods see it (the API server's).
	APIHost, APIPort string
	Version          string // kubelet version reported, e.g. v1.36.1
	Log              *slog.Logger
}

// Agent is a running node agent.
type Agent struct {
	o       Options
	cg      *cgroups
	mu      sync.Mutex
	workers map[types.UID]*podWorker
	// allocated is each pod's CPU request as admitted (millicores): what a resize must fit beside.
	allocated map[types.UID]int64
	eg        *errgroup.Group
}

// New checks the machine can isolate pods (a writable cgroup v1 cpu controller) and prepares
// the agent; Run starts it.
func New(o Options) (*Agent, error) {
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	cg, err := newCgroups(o.CgroupRoot, o.CPU.MilliValue())
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Join(o.Dir, "pods"), 0o755); err != nil {
		return nil, fmt.Errorf("node %s: %w", o.Name, err)
	}
	return &Agent{o: o, cg: cg, workers: map[types.UID]*podWorker{}, allocated: map[types.UID]int64{}}, nil
}

// Run registers the Node, keeps its Lease and status fresh and runs the pods bound to it until
// ctx ends; then it stops every pod's processes (SIGKILL after 2 s) and removes their cgroups.
func (a *Agent) Run(ctx context.Context) error {
	if err := a.register(ctx); err != nil {
		return err
	}
	eg, ctx := errgroup.WithContext(ctx)
	a.eg = eg
	eg.Go(func() error { return a.heartbeat(ctx) })

	factory := informers.NewSharedInformerFactoryWithOptions(a.o.Client, 0,
		informers.WithTweakListOptions(func(lo *metav1.ListOptions) {
			lo.FieldSelector = fields.OneTermEqualSelector("spec.nodeName", a.o.Name).String()
		}))
	inf := factory.Core().V1().Pods().Informer()
	if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { a.podChanged(ctx, obj) },
		UpdateFunc: func(_, obj any) { a.podChanged(ctx, obj) },
		DeleteFunc: func(obj any) { a.podGone(obj) },
	}); err != nil {
		return fmt.Errorf("node %s: pod informer: %w", a.o.Name, err)
	}
	eg.Go(func() error {
		inf.Run(ctx.Done())
		return nil
	})
	<-ctx.Done()
	a.mu.Lock()
	ws := make([]*podWorker, 0, len(a.workers))
	for _, w := range a.workers {
		ws = append(ws, w)
	}
	a.mu.Unlock()
	for _, w := range ws {
		w.forceStop()
	}
	err := eg.Wait()
	if errors.Is(err, context.Canceled) {
		err = nil
	}
	return err
}

// podChanged hands the newest pod object to its worker, starting one for a new pod.
func (a *Agent) podChanged(ctx context.Context, obj any) {
	pod, ok := obj.(*corev1.Pod)
	if !ok {
		return
	}
	a.mu.Lock()
	w, ok := a.workers[pod.UID]
	if !ok {
		if pod.Status.Phase == corev1.PodSucceeded || pod.Status.Phase == corev1.PodFailed {
			a.mu.Unlock()
			return
		}
		w = newPodWorker(a, pod)
		a.workers[pod.UID] = w
		a.eg.Go(func() error {
			w.run(ctx)
			a.mu.Lock()
			delete(a.workers, pod.UID)
			delete(a.allocated, pod.UID)
			a.mu.Unlock()
			return nil
		})
	}
	a.mu.Unlock()
	w.update(pod)
}

// podGone is a pod removed from the API server. Normally its worker deleted it after stopping
// it; a pod force-deleted by someone else is stopped now, as the kubelet does for a pod it finds
// gone (SIGKILL after 2 s).
func (a *Agent) podGone(obj any) {
	if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = t.Obj
	}
	pod, ok := obj.(*corev1.Pod)
	if !ok {
		return
	}
	a.mu.Lock()
	w := a.workers[pod.UID]
	a.mu.Unlock()
	if w != nil {
		w.forceStop()
	}
}

// PodCgroup is the pod's cgroup relative to the test bed's root (pod<uid>), for CPU accounting.
func PodCgroup(uid types.UID) string { return "pod" + string(uid) }

// CPUUsage is the CPU time used so far by the pod (and its containers), from cpuacct.
func (a *Agent) CPUUsage(uid types.UID) (time.Duration, error) {
	return a.cg.usage(PodCgroup(uid))
}

// ContainerCPUUsage is one container's CPU time so far.
func (a *Agent) ContainerCPUUsage(uid types.UID, container string) (time.Duration, error) {
	return a.cg.usage(PodCgroup(uid) + "/" + container)
}

// Leftovers are the pod cgroups under the test bed's root and the processes in them: after every
// pod is gone, both must be empty.
func (a *Agent) Leftovers() (groups []string, pids []int) {
	entries, _ := os.ReadDir(a.cg.cpuRoot)
	for _, e := range entries {
		if e.IsDir() {
			groups = append(groups, e.Name())
		}
	}
	return groups, a.cg.pids("")
}

// Close removes the test bed's cgroup root (and anything left in it).
func (a *Agent) Close() error { return a.cg.remove("") }

// CgroupCPU is what the kernel has for a pod's (container "" ) or a container's cgroup.
func (a *Agent) CgroupCPU(uid types.UID, container string) (CPU, error) {
	rel := PodCgroup(uid)
	if container != "" {
		rel += "/" + container
	}
	return a.cg.read(rel)
}

// RootCPU is the test bed's root group as the kernel has it (the kubepods group's stand-in).
func (a *Agent) RootCPU() (CPU, error) { return a.cg.read("") }
