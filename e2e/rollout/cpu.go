package rollout

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/warmup-sidecar/warmup-sidecar/e2e/bench"
)

// CPUWindow is the CPU each group of processes used over one window, in cores (CPU seconds per
// second).
type CPUWindow struct {
	Event   string     `json:"event"`
	Seconds float64    `json:"seconds"`
	Groups  []CPUGroup `json:"groups"`
	// Brokers is the broker pods' sum and BrokersLimit the sum of their CPU limits (0: none).
	Brokers      float64 `json:"brokers_cores"`
	BrokersLimit float64 `json:"brokers_limit_cores"`
	// Machine is every process's, from /proc/stat (other work on the machine included).
	Machine float64 `json:"machine_cores"`
	QPS     float64 `json:"qps,omitempty"` // answered queries per second, where known
}

// CPUGroup is one group's CPU over a window.
type CPUGroup struct {
	Name  string  `json:"name"`
	Cores float64 `json:"cores"`
	// LimitCores is the group's CPU limit (a broker pod's container limit); 0 when unlimited.
	LimitCores float64 `json:"limit_cores,omitempty"`
}

// Group names of the processes outside the pods.
const (
	GroupHarness      = "harness: ZooKeeper, controller, servers (no limit)"
	GroupControlPlane = "control plane: etcd, kube-apiserver, kube-controller-manager, kube-scheduler"
	GroupHAProxy      = "haproxy"
	GroupJavaClient   = "Pinot Java client"
	// GroupSelf is this process: the load generator, and with it the node agent, the service
	// proxy and the harness's polls.
	GroupSelf = "this process: load generator, node agent, service proxy, polls"
)

// cpuSample is every group's cumulative CPU at one instant.
type cpuSample struct {
	at      time.Time
	pods    map[string]podUsage // by pod name
	procs   map[string]map[int]float64
	machine float64
}

type podUsage struct {
	uid   types.UID
	usage time.Duration
	limit float64 // the broker container's CPU limit, cores (0: none)
}

// cpuMeter samples the broker pods' cgroups (the node agent's cpuacct) and the other groups'
// /proc/<pid>/stat.
type cpuMeter struct {
	b *bed
}

// sample reads every group now. extra adds groups of pids (HAProxy, the Java client).
func (m *cpuMeter) sample(ctx context.Context, extra map[string][]int) (cpuSample, error) {
	s := cpuSample{at: time.Now(), pods: map[string]podUsage{}, procs: map[string]map[int]float64{}}
	pods, err := m.b.Pods(ctx, namespace, brokerPods)
	if err != nil {
		return s, err
	}
	for _, p := range pods {
		if u, err := m.b.Agent.CPUUsage(p.UID); err == nil {
			s.pods[p.Name] = podUsage{uid: p.UID, usage: u, limit: limitCores(&p)}
		}
	}
	groups := map[string][]int{GroupHarness: m.b.pinot.PIDs(), GroupControlPlane: m.b.CP.PIDs(), GroupSelf: {0}}
	for k, v := range extra {
		groups[k] = v
	}
	for g, pids := range groups {
		s.procs[g] = map[int]float64{}
		for _, pid := range pids {
			if secs, err := bench.CPUSeconds(pid); err == nil {
				s.procs[g][pid] = secs
			}
		}
	}
	busy, _, err := bench.MachineCPU()
	if err != nil {
		return s, err
	}
	s.machine = busy
	return s, nil
}

// window is the CPU between two samples: each broker pod that lived through both (same UID),
// each group over the processes read at both.
func (m *cpuMeter) window(event string, a, b cpuSample) CPUWindow {
	secs := b.at.Sub(a.at).Seconds()
	w := CPUWindow{Event: event, Seconds: secs}
	if secs <= 0 {
		return w
	}
	for _, name := range slices.Sorted(maps.Keys(b.pods)) {
		pa, ok := a.pods[name]
		pb := b.pods[name]
		if !ok || pa.uid != pb.uid {
			continue
		}
		c := (pb.usage - pa.usage).Seconds() / secs
		w.Groups = append(w.Groups, CPUGroup{Name: "pod " + name, Cores: c, LimitCores: pb.limit})
		w.Brokers += c
		w.BrokersLimit += pb.limit
	}
	for _, g := range slices.Sorted(maps.Keys(b.procs)) {
		sum, seen := 0.0, false
		for pid, vb := range b.procs[g] {
			if va, ok := a.procs[g][pid]; ok {
				sum, seen = sum+vb-va, true
			}
		}
		if seen {
			w.Groups = append(w.Groups, CPUGroup{Name: g, Cores: sum / secs})
		}
	}
	w.Machine = (b.machine - a.machine) / secs
	return w
}

// limitCores is the pod's broker container CPU limit as its status reports it (what the node
// agent runs: a boost's raise and give-back included), else as its spec has it; 0 for none.
func limitCores(p *corev1.Pod) float64 {
	if q, ok := brokerCPULimit(p); ok {
		return float64(q.MilliValue()) / 1000
	}
	for _, c := range p.Spec.Containers {
		if q, ok := c.Resources.Limits[corev1.ResourceCPU]; ok && c.Name == brokerCtr {
			return float64(q.MilliValue()) / 1000
		}
	}
	return 0
}

// Note says what bounds the fleet at capacity: the brokers' share of their limits (brokers
// without one: their cores), the machine's of its cores.
func (w CPUWindow) Note(cores float64) string {
	if w.BrokersLimit == 0 {
		return fmt.Sprintf("at capacity (%s, %.0f QPS over %.0f s) the broker pods used %.2f cores (no CPU limit), the machine %.2f of %.0f cores",
			w.Event, w.QPS, w.Seconds, w.Brokers, w.Machine, cores)
	}
	share := 0.0
	if w.BrokersLimit > 0 {
		share = w.Brokers / w.BrokersLimit
	}
	return fmt.Sprintf("at capacity (%s, %.0f QPS over %.0f s) the broker pods used %.2f of their %.2f cores of CPU limit (%.0f %%), the machine %.2f of %.0f cores",
		w.Event, w.QPS, w.Seconds, w.Brokers, w.BrokersLimit, 100*share, w.Machine, cores)
}
