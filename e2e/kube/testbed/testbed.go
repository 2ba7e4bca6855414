// Package testbed assembles the Kubernetes test bed (docs/testbed.md): the real control plane
// (e2e/kube/controlplane), one node agent in the kubelet's place (e2e/kube/node) with the image
// launchers (e2e/kube/launch), and the pod network (e2e/kube/podnet); the service proxy in
// kube-proxy's place (e2e/kube/proxy) is started per Service by whoever sends traffic. Helm and
// kubectl run against it as an operator's would, with the admin kubeconfig.
package testbed

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/warmup-sidecar/warmup-sidecar/e2e/kube/controlplane"
	"github.com/warmup-sidecar/warmup-sidecar/e2e/kube/launch"
	"github.com/warmup-sidecar/warmup-sidecar/e2e/kube/node"
	"github.com/warmup-sidecar/warmup-sidecar/e2e/kube/podnet"
)

// NodeName is the test bed's one node.
const NodeName = "testbed-node"

// CgroupPrefix names the test bed's cgroup root, <prefix>-<pid of the test process>.
const CgroupPrefix = "warmup-testbed"

// Options configure Start.
type Options struct {
	Dir       string // everything the test bed writes; the caller removes it
	Launchers launch.Registry
	// CPU is the node's capacity (default: the machine's cores); Memory likewise (default 16Gi).
	CPU, Memory resource.Quantity
	// BasePort is where the pods' host port blocks start (20 ports per pod); default 27000.
	BasePort int
	Log      *slog.Logger
}

// Bed is a running test bed.
type Bed struct {
	CP    *controlplane.ControlPlane
	Agent *node.Agent
	Net   *podnet.Network
	Admin kubernetes.Interface
	dir   string
	stop  context.CancelFunc
	done  chan error
}

// Start brings the control plane and the node up and returns once the node is Ready and
// schedulable (the node lifecycle controller has lifted its not-ready taint).
func Start(ctx context.Context, o Options) (b *Bed, err error) {
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if o.CPU.IsZero() {
		o.CPU = *resource.NewQuantity(int64(runtime.NumCPU()), resource.DecimalSI)
	}
	if o.Memory.IsZero() {
		o.Memory = resource.MustParse("16Gi")
	}
	if o.BasePort == 0 {
		o.BasePort = 27000
	}
	cp, err := controlplane.Start(ctx, controlplane.Options{Dir: filepath.Join(o.Dir, "controlplane"), Nodes: []string{NodeName}, Log: o.Log})
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			cp.Stop()
		}
	}()
	admin, err := cp.Client(controlplane.UserAdmin)
	if err != nil {
		return nil, err
	}
	nodeClient, err := cp.Client(controlplane.NodeUser(NodeName))
	if err != nil {
		return nil, err
	}
	apiPort := cp.Server[strings.LastIndex(cp.Server, ":")+1:]
	for _, g := range node.RemoveStale(CgroupPrefix) {
		o.Log.Warn("removed a killed test bed's cgroup", "cgroup", g)
	}
	net := podnet.New(o.BasePort, 20)
	agent, err := node.New(node.Options{
		Name: NodeName, Client: nodeClient, Dir: filepath.Join(o.Dir, "node"), Launchers: o.Launchers, Net: net,
		CgroupRoot: fmt.Sprintf("%s-%d", CgroupPrefix, os.Getpid()), CPU: o.CPU, Memory: o.Memory,
		APIHost: "127.0.0.1", APIPort: apiPort, Version: "v1.36.1", Log: o.Log.With("component", "node"),
	})
	if err != nil {
		return nil, err
	}
	runCtx, cancel := context.WithCancel(context.Background())
	b = &Bed{CP: cp, Agent: agent, Net: net, Admin: admin, dir: o.Dir, stop: cancel, done: make(chan error, 1)}
	go func() { b.done <- agent.Run(runCtx) }()
	if err := b.waitNodeSchedulable(ctx); err != nil {
		cancel()
		<-b.done
		agent.Close()
		return nil, err
	}
	return b, nil
}

func (b *Bed) waitNodeSchedulable(ctx context.Context) error {
	for {
		n, err := b.Admin.CoreV1().Nodes().Get(ctx, NodeName, metav1.GetOptions{})
		if err == nil && len(n.Spec.Taints) == 0 {
			for _, c := range n.Status.Conditions {
				if c.Type == corev1.NodeReady && c.Status == corev1.ConditionTrue {
					return nil
				}
			}
		}
		select {
		case <-ctx.Done():
			taints := "?"
			if n != nil {
				taints = fmt.Sprint(n.Spec.Taints)
			}
			return fmt.Errorf("node %s not Ready and untainted (taints %s): %w", NodeName, taints, ctx.Err())
		case <-time.After(200 * time.Millisecond):
		case err := <-b.done:
			return fmt.Errorf("node agent stopped: %v", err)
		}
	}
}

// Kubeconfig is the operator's (admin) kubeconfig, for helm and kubectl.
func (b *Bed) Kubeconfig() string { return b.CP.Kubeconfig(controlplane.UserAdmin) }

// Stop stops the node agent (every pod's processes) and the control plane, and reports what was
// left behind: a pod cgroup or a process in one is an error.
func (b *Bed) Stop() error {
	b.stop()
	err := <-b.done
	groups, pids := b.Agent.Leftovers()
	var errs []error
	if err != nil {
		errs = append(errs, err)
	}
	if len(groups) > 0 || len(pids) > 0 {
		errs = append(errs, fmt.Errorf("test bed left behind cgroups %v and processes %v", groups, pids))
	}
	if cerr := b.Agent.Close(); cerr != nil {
		errs = append(errs, cerr)
	}
	b.CP.Stop()
	return errors.Join(errs...)
}
