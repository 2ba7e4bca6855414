package rollout

import (
	"math"
	"strings"
	"testing"
	"time"
)

// A window counts each broker pod that lived through it (same UID at both ends), each group over
// the processes read at both ends, in cores.
func TestCPUWindowIsPerGroupInCores(t *testing.T) {
	at := time.Date(2026, 12, 4, 5, 0, 0, 0, time.UTC)
	a := cpuSample{at: at, machine: 100,
		pods:  map[string]podUsage{"pinot-broker-0": {"u0", 10 * time.Second}, "pinot-broker-1": {"u1", 20 * time.Second}, "pinot-broker-2": {"old", 0}},
		procs: map[string]map[int]float64{GroupHarness: {11: 50, 12: 60, 13: 70}, GroupSelf: {0: 5}}}
	b := cpuSample{at: at.Add(10 * time.Second), machine: 118,
		pods:  map[string]podUsage{"pinot-broker-0": {"u0", 14 * time.Second}, "pinot-broker-1": {"u1", 25 * time.Second}, "pinot-broker-2": {"new", time.Second}},
		procs: map[string]map[int]float64{GroupHarness: {11: 53, 12: 62}, GroupSelf: {0: 6}}}
	w := (&cpuMeter{limit: 0.5}).window("off-rollout-1", a, b)
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
