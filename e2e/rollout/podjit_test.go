package rollout

import (
	"reflect"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/warmup-sidecar/warmup-sidecar/e2e/coldstart"
)

// withCPULimit is p with its broker container's status reporting a CPU limit (what the node
// agent runs it at).
func withCPULimit(p *corev1.Pod, lim string) *corev1.Pod {
	p.Status.ContainerStatuses[0].Resources = &corev1.ResourceRequirements{
		Limits: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(lim)}}
	return p
}

// The give-back is seen once, when the status's limit falls below the first one; a limit that
// stays, or a pod never boosted, records nothing.
func TestBoostEndedWhenTheRunningLimitFalls(t *testing.T) {
	for _, tc := range []struct {
		name   string
		limits []string
		want   []Kind
	}{
		{"boosted then given back", []string{"1", "1", "300m", "300m"}, []Kind{KindCreated, KindBoostEnded}},
		{"never boosted", []string{"300m", "300m"}, []Kind{KindCreated}},
		{"raised later (not a give-back)", []string{"300m", "1"}, []Kind{KindCreated}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			life := &podLife{}
			var got []Kind
			for _, l := range tc.limits {
				got = append(got, transitions(life, withCPULimit(pod(true, false, false, 0), l))...)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("transitions %v, want %v", got, tc.want)
			}
		})
	}
}

// A pod's JIT windows are read from its own life's readings: a reading of the pod's next life
// (same ordinal) is not counted, and a window no reading reaches past is absent, not 0.
func TestPodJITWindowsFromItsReadings(t *testing.T) {
	t0 := time.Date(2026, 12, 4, 12, 0, 0, 0, time.UTC)
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	ev := []Event{
		{At: at(0), Pod: 1, Kind: KindCreated},
		{At: at(0.5), Pod: 2, Kind: KindJIT, Value: 99}, // another pod
	}
	// Readings every second: 0.2 s of compile per second until the entry at 30 s, then 0.5 s/s
	// for 10 s, then 0.05 s/s.
	v := 0.0
	for s := 1; s <= 90; s++ {
		switch {
		case s <= 30:
			v += 0.2
		case s <= 40:
			v += 0.5
		default:
			v += 0.05
		}
		ev = append(ev, Event{At: at(float64(s)), Pod: 1, Kind: KindJIT, Value: v})
	}
	ev = append(ev, Event{At: at(30), Pod: 1, Kind: KindInService},
		Event{At: at(20), Pod: 1, Kind: KindWarm, Detail: "budget_expired, 52 probes in 15.0 s"},
		Event{At: at(95), Pod: 1, Kind: KindBoostEnded, Detail: "1 → 300m"},
		Event{At: at(100), Pod: 1, Kind: KindCreated}, // the next life
		Event{At: at(101), Pod: 1, Kind: KindJIT, Value: 0.1},
		Event{At: at(102), Pod: 1, Kind: KindBoostEnded, Detail: "next life"})
	tl := &Timeline{}
	for _, e := range ev {
		tl.add(e)
	}
	pods := podTimes(tl.Events(), t0, Bounds{Rollout: coldstart.Window{End: 200 * time.Second}})
	if len(pods) != 2 {
		t.Fatalf("%d pods, want 2 lives", len(pods))
	}
	p := pods[0]
	j := p.JIT
	if j == nil {
		t.Fatal("no JIT windows")
	}
	near := func(name string, got *float64, want float64) {
		t.Helper()
		if got == nil {
			t.Errorf("%s absent, want %.2f", name, want)
			return
		}
		if d := *got - want; d > 0.001 || d < -0.001 {
			t.Errorf("%s = %.3f, want %.2f", name, *got, want)
		}
	}
	near("start→in service", j.StartToInService, 6)
	near("entry", j.Entry, 5)
	if j.Late != nil {
		t.Errorf("late window 90–105 s is past the last reading (90 s) and must be absent, got %.3f", *j.Late)
	}
	if j.Readings != 90 || j.Total < 13.49 || j.Total > 13.51 {
		t.Errorf("readings %d total %.3f, want 90 and 13.5 (the next life's reading not counted)", j.Readings, j.Total)
	}
	if len(j.Series) != 90 || j.Series[0] != [2]float64{1, 0.2} || j.Series[89] != [2]float64{90, 13.5} {
		t.Errorf("series of %d readings from %v to %v, want 90 from [1 0.2] to [90 13.5] on the pod's clock", len(j.Series), j.Series[0], j.Series[len(j.Series)-1])
	}
	if s := pods[1].JIT.Series; len(s) != 1 || s[0] != [2]float64{1, 0.1} {
		t.Errorf("next life's series %v, want [[1 0.1]] on its own clock", s)
	}
	if p.Warmup != "budget_expired, 52 probes in 15.0 s" || p.BoostSeconds != 95 || p.BoostEnd != "1 → 300m" {
		t.Errorf("warmup %q boost %.0f s %q, want the life's own", p.Warmup, p.BoostSeconds, p.BoostEnd)
	}
	if pods[1].BoostSeconds != 2 || pods[1].JIT == nil || pods[1].JIT.Readings != 1 {
		t.Errorf("next life: boost %.0f s, jit %+v; want 2 s and its one reading", pods[1].BoostSeconds, pods[1].JIT)
	}
}
