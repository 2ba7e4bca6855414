package rollout

import (
	"math"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// A window counts each broker pod that lived through it (same UID at both ends), each group over
// the processes read at both ends, in cores.
func TestCPUWindowIsPerGroupInCores(t *testing.T) {
	at := time.Date(2026, 12, 4, 5, 0, 0, 0, time.UTC)
	a := cpuSample{at: at, machine: 100,
		pods:  map[string]podUsage{"pinot-broker-0": {"u0", 10 * time.Second, 0.5}, "pinot-broker-1": {"u1", 20 * time.Second, 0.5}, "pinot-broker-2": {"old", 0, 0.5}},
		procs: map[string]map[int]float64{GroupHarness: {11: 50, 12: 60, 13: 70}, GroupSelf: {0: 5}}}
	b := cpuSample{at: at.Add(10 * time.Second), machine: 118,
		pods:  map[string]podUsage{"pinot-broker-0": {"u0", 14 * time.Second, 0.5}, "pinot-broker-1": {"u1", 25 * time.Second, 0.5}, "pinot-broker-2": {"new", time.Second, 0.5}},
		procs: map[string]map[int]float64{GroupHarness: {11: 53, 12: 62}, GroupSelf: {0: 6}}}
	w := (&cpuMeter{}).window("off-rollout-1", a, b)
	want := map[string]float64{"pod pinot-broker-0": 0.4, "pod pinot-broker-1": 0.5, GroupHarness: 0.5, GroupSelf: 0.1}
	if len(w.Groups) != len(want) {
		t.Fatalf("groups %+v, want %v (pod 2 was replaced: not counted)", w.Groups, want)
	}
	for _, g := range w.Groups {
		if math.Abs(g.Cores-want[g.Name]) > 1e-9 {
			t.Errorf("%s: %.3f cores, want %.3f", g.Name, g.Cores, want[g.Name])
		}
	}
	if math.Abs(w.Brokers-0.9) > 1e-9 || w.BrokersLimit != 1 || math.Abs(w.Machine-1.8) > 1e-9 || w.Seconds != 10 {
		t.Errorf("window %+v: want brokers 0.9 of 1 core limit, machine 1.8, 10 s", w)
	}
	if n := w.Note(2); !strings.Contains(n, "0.90 of their 1.00 cores of CPU limit (90 %), the machine 1.80 of 2 cores") {
		t.Errorf("note %q", n)
	}
}

// Brokers without a CPU limit count none: the window's limit is 0 and its note says so; each
// pod's limit is its own (on_boost_300m's pods have one in a study whose brokers have none).
func TestCPUWindowOfBrokersWithoutALimit(t *testing.T) {
	at := time.Date(2026, 12, 4, 5, 0, 0, 0, time.UTC)
	a := cpuSample{at: at, machine: 100, pods: map[string]podUsage{"pinot-broker-0": {"u0", 0, 0}, "pinot-broker-1": {"u1", 0, 0}}}
	b := cpuSample{at: at.Add(10 * time.Second), machine: 115, pods: map[string]podUsage{"pinot-broker-0": {"u0", 6 * time.Second, 0}, "pinot-broker-1": {"u1", 4 * time.Second, 0}}}
	w := (&cpuMeter{}).window("on_fast-rollout-1", a, b)
	if w.BrokersLimit != 0 || math.Abs(w.Brokers-1) > 1e-9 {
		t.Errorf("window %+v: want brokers 1.0 core, no limit", w)
	}
	if n := w.Note(2); !strings.Contains(n, "the broker pods used 1.00 cores (no CPU limit), the machine 1.50 of 2 cores") {
		t.Errorf("note %q", n)
	}
	b.pods["pinot-broker-1"] = podUsage{"u1", 4 * time.Second, 0.3}
	if w := (&cpuMeter{}).window("x", a, b); math.Abs(w.BrokersLimit-0.3) > 1e-9 || w.Groups[1].LimitCores != 0.3 || w.Groups[0].LimitCores != 0 {
		t.Errorf("one pod limited: %+v", w)
	}
}

// A pod's limit is what its status says the node agent runs (a boost's raise or give-back), else
// its spec's; none is 0.
func TestLimitCoresFromThePod(t *testing.T) {
	broker := func(lim string) corev1.Container {
		c := corev1.Container{Name: brokerCtr}
		if lim != "" {
			c.Resources.Limits = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(lim)}
		}
		return c
	}
	p := &corev1.Pod{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: sidecarCtr, Resources: corev1.ResourceRequirements{Limits: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2")}}}, broker("")}}}
	if got := limitCores(p); got != 0 {
		t.Errorf("no broker limit: %v, want 0 (the sidecar's is not the broker's)", got)
	}
	p.Spec.Containers[1] = broker("300m")
	if got := limitCores(p); got != 0.3 {
		t.Errorf("spec 300m: %v", got)
	}
	p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: brokerCtr, Resources: &corev1.ResourceRequirements{Limits: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")}}}}
	if got := limitCores(p); got != 1 {
		t.Errorf("status 1 (boosted), spec 300m: %v, want the status's", got)
	}
}
