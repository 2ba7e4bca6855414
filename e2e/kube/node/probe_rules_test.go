package node

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// The prober worker's decisions (pkg/kubelet/prober/worker.go doProbe), one table row per gate
// and per threshold rule, without I/O.

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func running(id string, startedAt time.Time, started bool) containerView {
	return containerView{ID: id, Running: true, StartedAt: startedAt, Started: started}
}

func TestProbeRulesGates(t *testing.T) {
	spec := &corev1.Probe{InitialDelaySeconds: 3, PeriodSeconds: 1, SuccessThreshold: 1, FailureThreshold: 1}
	cases := []struct {
		name   string
		kind   probeKind
		now    time.Time
		view   containerView
		probe  bool
		result result // held afterwards
	}{
		{"no container yet: wait", probeReadiness, t0, containerView{}, false, resultUnknown},
		{"readiness starts failed", probeReadiness, t0, running("a", t0, true), false, resultFailure},
		{"liveness starts succeeded", probeLiveness, t0, running("a", t0, true), false, resultSuccess},
		{"startup starts unknown", probeStartup, t0, running("a", t0, false), false, resultUnknown},
		{"not before the initial delay", probeReadiness, t0.Add(2999 * time.Millisecond), running("a", t0, true), false, resultFailure},
		{"at the initial delay", probeReadiness, t0.Add(3 * time.Second), running("a", t0, true), true, resultFailure},
		{"whole seconds: 3.9 s is 3", probeLiveness, t0.Add(3900 * time.Millisecond), running("a", t0, true), true, resultSuccess},
		{"not running: failed, no probe", probeReadiness, t0.Add(5 * time.Second), containerView{ID: "a", StartedAt: t0}, false, resultFailure},
		{"not running: liveness failed too", probeLiveness, t0.Add(5 * time.Second), containerView{ID: "a", StartedAt: t0}, false, resultFailure},
		{"deleting: liveness succeeds quietly", probeLiveness, t0.Add(5 * time.Second), containerView{ID: "a", Running: true, StartedAt: t0, Started: true, Deleting: true}, false, resultSuccess},
		{"deleting: startup succeeds quietly", probeStartup, t0.Add(5 * time.Second), containerView{ID: "a", Running: true, StartedAt: t0, Deleting: true}, false, resultSuccess},
		{"deleting: readiness still probes", probeReadiness, t0.Add(5 * time.Second), containerView{ID: "a", Running: true, StartedAt: t0, Started: true, Deleting: true}, true, resultFailure},
		{"not started: startup probes", probeStartup, t0.Add(5 * time.Second), running("a", t0, false), true, resultUnknown},
		{"not started: readiness waits", probeReadiness, t0.Add(5 * time.Second), running("a", t0, false), false, resultFailure},
		{"not started: liveness waits", probeLiveness, t0.Add(5 * time.Second), running("a", t0, false), false, resultSuccess},
		{"started: startup stops", probeStartup, t0.Add(5 * time.Second), running("a", t0, true), false, resultUnknown},
		{"started: liveness probes", probeLiveness, t0.Add(5 * time.Second), running("a", t0, true), true, resultSuccess},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := &probeRules{kind: tc.kind, spec: spec}
			if got := r.shouldProbe(tc.now, tc.view); got != tc.probe {
				t.Errorf("shouldProbe = %v, want %v", got, tc.probe)
			}
			if r.result != tc.result {
				t.Errorf("result %s, want %s", r.result, tc.result)
			}
		})
	}
}

// step is one tick of a probe worker: the container it sees, and the outcome if it probes.
type step struct {
	id      string // container instance ("" none)
	started bool
	outcome result // fed if the tick probes
}

// run plays steps one second apart (initial delay 0) and writes each tick's verdict:
// "-" no probe, else the outcome fed, then "!" when the held result changed; and the held result.
func run(r *probeRules, steps []step) string {
	var out []string
	for i, s := range steps {
		now := t0.Add(time.Duration(i) * time.Second)
		if !r.shouldProbe(now, running(s.id, t0, s.started)) {
			out = append(out, "-"+r.result.String()[:1])
			continue
		}
		mark := ""
		if r.record(s.outcome) {
			mark = "!"
		}
		out = append(out, s.outcome.String()[:1]+mark+r.result.String()[:1])
	}
	return strings.Join(out, " ")
}

func TestProbeRulesThresholds(t *testing.T) {
	ok, fail := resultSuccess, resultFailure
	steps := func(id string, started bool, outcomes ...result) []step {
		var out []step
		for _, o := range outcomes {
			out = append(out, step{id: id, started: started, outcome: o})
		}
		return out
	}
	cases := []struct {
		name          string
		kind          probeKind
		success, fail int32
		steps         []step
		want          string // per tick: outcome, "!" if the held result changed, held result (s/f/u)
	}{
		{"readiness: one success makes ready", probeReadiness, 1, 3,
			steps("a", true, ok, ok), "s!s ss"},
		{"readiness: successThreshold in a row", probeReadiness, 3, 1,
			steps("a", true, ok, ok, fail, ok, ok, ok), "sf sf ff sf sf s!s"},
		{"readiness: failureThreshold in a row", probeReadiness, 1, 3,
			steps("a", true, ok, fail, fail, ok, fail, fail, fail), "s!s fs fs ss fs fs f!f"},
		{"liveness: failureThreshold then on hold until a new container", probeLiveness, 1, 2,
			append(steps("a", true, fail, fail, fail), steps("b", true, ok)...), "fs f!f -f ss"},
		// The new container's result is the initial one (success), but the run of failures goes on:
		// the kubelet's worker keeps lastResult and resultRun across the container's instances.
		{"liveness: the run of results spans instances", probeLiveness, 1, 3,
			append(steps("a", true, fail, fail), steps("b", true, fail)...), "fs fs f!f"},
		{"startup: success then on hold", probeStartup, 1, 3,
			append(steps("a", false, fail, ok), step{id: "a", started: false, outcome: ok}), "fu s!s -s"},
		{"startup: failureThreshold then on hold", probeStartup, 1, 2,
			steps("a", false, fail, fail, fail), "fu f!f -f"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := &probeRules{kind: tc.kind, spec: &corev1.Probe{PeriodSeconds: 1, SuccessThreshold: tc.success, FailureThreshold: tc.fail}}
			if got := run(r, tc.steps); got != tc.want {
				t.Errorf("ticks %q, want %q", got, tc.want)
			}
		})
	}
}

// TestRestartBackoff: the kubelet's crash loop backoff (flowcontrol.Backoff as the kubelet sets
// it up: 10 s doubling to 5 min, the first restart at once, forgotten when the container ran
// more than 10 min).
func TestRestartBackoff(t *testing.T) {
	cases := []struct {
		name string
		runs []time.Duration // how long each instance ran before it exited
		want []time.Duration // the delay before the next start, after each exit
	}{
		{"crash loop", []time.Duration{0, 0, 0, 0, 0, 0, 0, 0},
			[]time.Duration{0, 10 * time.Second, 20 * time.Second, 40 * time.Second, 80 * time.Second, 160 * time.Second, 300 * time.Second, 300 * time.Second}},
		{"short runs keep the backoff", []time.Duration{time.Minute, 9 * time.Minute, time.Minute},
			[]time.Duration{0, 10 * time.Second, 20 * time.Second}},
		{"ten minutes of running forget it", []time.Duration{0, 0, 0, 11 * time.Minute, 0},
			[]time.Duration{0, 10 * time.Second, 20 * time.Second, 0, 10 * time.Second}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := &container{}
			now := t0
			var got []string
			for _, ran := range tc.runs {
				c.startedAt = now
				now = now.Add(ran)
				c.waiting = ""
				c.scheduleRestart(now)
				delay := c.nextStart.Sub(now)
				got = append(got, delay.String())
				if (delay > 0) != (c.waiting == "CrashLoopBackOff") {
					t.Errorf("after a run of %s: delay %s, waiting reason %q: want CrashLoopBackOff exactly while backing off", ran, delay, c.waiting)
				}
				now = c.nextStart
			}
			var want []string
			for _, d := range tc.want {
				want = append(want, d.String())
			}
			if strings.Join(got, " ") != strings.Join(want, " ") {
				t.Errorf("delays %v, want %v", got, want)
			}
		})
	}
}
