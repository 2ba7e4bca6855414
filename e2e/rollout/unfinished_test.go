package rollout

import (
	"strings"
	"testing"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/e2e/coldstart"
)

// The broker restarts an event counts are those within its rollout window, and a restart puts
// the pod back to starting in the timeline.
func TestRestartsAreCountedWithinTheRolloutWindow(t *testing.T) {
	sec := func(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }
	events := []Event{
		ev(0, 0, KindCreated), ev(0, 0, KindHealthy), ev(0, 0, KindReady),
		ev(5, 0, KindRestarted),   // before the rollout: not its
		ev(50, 0, KindRestarted),  // in it
		ev(80, 1, KindRestarted),  // in it
		ev(120, 0, KindRestarted), // after its end
	}
	b := Bounds{Steady: coldstart.Window{Start: 0, End: sec(10)}, Rollout: coldstart.Window{Start: sec(20), End: sec(100)}, Done: sec(100)}
	if got := countKind(events, KindRestarted, t0, b.Rollout); got != 2 {
		t.Errorf("restarts in the rollout window: %d, want 2", got)
	}
	res := summarise(ArmOff, 1, "rollout", causeTrace(), events, b)
	if res.BrokerRestarts != 2 {
		t.Errorf("summarise: BrokerRestarts %d, want 2", res.BrokerRestarts)
	}
	if got := next(StateReady, KindRestarted); got != StateStarting {
		t.Errorf("a restart of a ready pod: %s, want %s", got, StateStarting)
	}
	if got := next(StateTerminating, KindRestarted); got != StateTerminating {
		t.Errorf("a restart of a terminating pod: %s, want it to stay terminating", got)
	}
}

// An unfinished event is said as such in both tables, with why and how the fleet recovered;
// its bound is not a duration in the arm's median, nor its never-Ready pods in start → Ready.
func TestUnfinishedEventsAreReportedNotAveraged(t *testing.T) {
	done := &Result{Arm: ArmOff, Kind: "rollout", N: 1, DurationSeconds: 200, Queries: 100, Failed: 3,
		Pods: []PodTimes{{Pod: 0, ReadySeconds: 60}, {Pod: 1, ReadySeconds: 62}}}
	cascade := &Result{Arm: ArmOff, Kind: "rollout", N: 2, DurationSeconds: 1080, Queries: 100, Failed: 90, BrokerRestarts: 8,
		Unfinished: "StatefulSet pinot-broker not rolled out to 2 Ready pods within 18m0s", RecoverySeconds: 95,
		Pods: []PodTimes{{Pod: 1, ReadySeconds: 61, Warmup: "budget_expired, 200 probes"}, {Pod: 0}}}
	s := &Study{Brokers: 2, PinotVersion: "1.5.1", Arms: map[string]*Arm{ArmOff: {Rollouts: []*Result{done, cascade}}}}

	table := Table(s)
	for _, want := range []string{"| 200 s (200–200); 1 did not finish |", "| 61 s (60–62) |"} {
		if !strings.Contains(table, want) {
			t.Errorf("Table lacks %q:\n%s", want, table)
		}
	}
	md := Markdown(s, "x")
	for _, want := range []string{
		"| did not finish within 1080 s | 8 | 1: 61 s (0 s), 0: not Ready (not healthy) |",
		"| off | 4 | 93 | – | 0 ms (0–0) | – | 61 s (60–62) |", // pod restarts one by one: the never-Ready pod left out
		"- off rollout 2: StatefulSet pinot-broker not rolled out to 2 Ready pods within 18m0s. With no load, the fleet was rolled out and Ready 95 s later.",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("Markdown lacks %q:\n%s", want, md)
		}
	}
	cascade.RecoverySeconds = 0
	if md := Markdown(s, "x"); !strings.Contains(md, "The fleet was not seen to recover with no load") {
		t.Errorf("Markdown of a fleet that did not recover does not say so:\n%s", md)
	}
	if md := Markdown(&Study{Brokers: 2, Arms: map[string]*Arm{ArmOff: {Rollouts: []*Result{done}}}}, "x"); strings.Contains(md, "did not finish") {
		t.Errorf("a study whose events all finished mentions unfinished ones:\n%s", md)
	}
}
