//go:build kube

package node

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
)

func httpProbe(path string, delay, period, success, failure int32) *corev1.Probe {
	return &corev1.Probe{
		ProbeHandler:        corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: path, Port: intstr.FromString("http")}},
		InitialDelaySeconds: delay, PeriodSeconds: period, SuccessThreshold: success, FailureThreshold: failure, TimeoutSeconds: 1,
	}
}

// TestProbeTimings holds the agent's prober to pkg/kubelet/prober/worker.go on the real API
// server: when the first probe may run, how many results change the verdict, what the startup
// probe gates, that a liveness failure restarts the container, that a slow handler fails.
func TestProbeTimings(t *testing.T) {
	b := startBed(t, "node-probe")
	defer b.stop()
	ns := "probes"
	b.namespace(t, ns)

	t.Run("group", func(t *testing.T) {
		// No probe before initialDelaySeconds after the container started; then one per periodSeconds;
		// Ready with the first success (successThreshold 1). The period is shorter than the delay,
		// so a probe the delay should have held back reaches the helper (not only one sent before it
		// listens).
		t.Run("initial delay and period", func(t *testing.T) {
			t.Parallel()
			const delay, period = 3, 1
			pod := b.helperPod(ns, "delay")
			pod.Spec.Containers[0].ReadinessProbe = httpProbe("/healthz", delay, period, 1, 1)
			created, l := b.create(t, pod)
			defer b.deletePod(t, created, l)
			ready := l.first(t, "Ready", time.Time{}, 30*time.Second, podReady)
			started, _ := b.startedAt(t, created.UID, "app")
			time.Sleep(3*period*time.Second + 500*time.Millisecond) // three more probes
			probes := pick(b.events(t, created, "app"), "probe", "/healthz")
			if len(probes) < 4 {
				t.Fatalf("%d probes, want at least 4: %v", len(probes), probes)
			}
			first := probes[0].At.Sub(started)
			t.Logf("container started %s, first probe +%s, Ready seen +%s", started.Format("15:04:05.000"), secs(first), secs(ready.At.Sub(started)))
			if first < delay*time.Second {
				t.Errorf("first probe %s after the container started, before initialDelaySeconds %d", secs(first), delay)
			}
			if first > (delay+period)*time.Second+slack {
				t.Errorf("first probe %s after the container started, want by initialDelaySeconds+periodSeconds = %ds (+%s)", secs(first), delay+period, slack)
			}
			if d := ready.At.Sub(probes[0].At); d > slack {
				t.Errorf("Ready seen %s after the first successful probe, want within %s", secs(d), slack)
			}
			// The status's own times (whole seconds) say the same.
			cs := containerStatus(ready.Pod, "app")
			if cs.State.Running == nil {
				t.Fatalf("Ready pod's container not running: %s", containerStates(ready.Pod))
			}
			if d := readyCondition(ready.Pod).LastTransitionTime.Sub(cs.State.Running.StartedAt.Time); d < delay*time.Second {
				t.Errorf("status: Ready at %s, container startedAt %s: %s apart, before initialDelaySeconds %d",
					readyCondition(ready.Pod).LastTransitionTime, cs.State.Running.StartedAt, d, delay)
			}
			var sum time.Duration
			for i := 1; i < len(probes); i++ {
				gap := probes[i].At.Sub(probes[i-1].At)
				sum += gap
				if gap < period*time.Second/2 {
					t.Errorf("probes %d and %d %s apart, periodSeconds %d", i-1, i, secs(gap), period)
				}
			}
			if mean := sum / time.Duration(len(probes)-1); mean < period*time.Second-300*time.Millisecond || mean > period*time.Second+500*time.Millisecond {
				t.Errorf("mean probe interval %s, periodSeconds %d", secs(mean), period)
			}
		})

		// Ready only after successThreshold successes in a row.
		t.Run("success threshold", func(t *testing.T) {
			t.Parallel()
			const period, success = 1, 3
			pod := b.helperPod(ns, "success")
			pod.Spec.Containers[0].ReadinessProbe = httpProbe("/healthz", 0, period, success, 1)
			created, l := b.create(t, pod)
			defer b.deletePod(t, created, l)
			ready := l.first(t, "Ready", time.Time{}, 30*time.Second, podReady)
			ok := withCode(before(pick(b.events(t, created, "app"), "probe", "/healthz"), ready.At), "200")
			if len(ok) < success {
				t.Fatalf("Ready after %d successful probes, successThreshold %d: %v", len(ok), success, ok)
			}
			if d := ready.At.Sub(ok[success-1].At); d > slack {
				t.Errorf("Ready seen %s after success %d, want within %s", secs(d), success, slack)
			}
			cs := containerStatus(ready.Pod, "app")
			if d := readyCondition(ready.Pod).LastTransitionTime.Sub(cs.State.Running.StartedAt.Time); d < (success-1)*period*time.Second {
				t.Errorf("status: Ready %s after the container started, want ≥ (successThreshold-1)×periodSeconds = %ds", d, (success-1)*period)
			}
		})

		// NotReady only after failureThreshold failures in a row, about failureThreshold×periodSeconds
		// after the handler starts failing.
		t.Run("failure threshold", func(t *testing.T) {
			t.Parallel()
			const period, failure = 1, 3
			pod := b.helperPod(ns, "failure", "FAIL_AFTER=3s")
			pod.Spec.Containers[0].ReadinessProbe = httpProbe("/healthz", 0, period, 1, failure)
			created, l := b.create(t, pod)
			defer b.deletePod(t, created, l)
			ready := l.first(t, "Ready", time.Time{}, 30*time.Second, podReady)
			notReady := l.first(t, "NotReady again", ready.At, 30*time.Second, func(p *corev1.Pod) bool { return !podReady(p) })
			probes := pick(b.events(t, created, "app"), "probe", "/healthz")
			fails := withCode(before(probes, notReady.At), "503")
			if len(fails) < failure {
				t.Fatalf("NotReady after %d failed probes, failureThreshold %d: %v", len(fails), failure, fails)
			}
			if d := notReady.At.Sub(fails[failure-1].At); d > slack {
				t.Errorf("NotReady seen %s after failure %d, want within %s", secs(d), failure, slack)
			}
			d := notReady.At.Sub(fails[0].At)
			t.Logf("NotReady %s after the first failed probe (failureThreshold %d × periodSeconds %d)", secs(d), failure, period)
			if d < (failure-1)*period*time.Second-300*time.Millisecond || d > failure*period*time.Second+slack {
				t.Errorf("NotReady %s after the first failure, want about failureThreshold×periodSeconds = %ds", secs(d), failure*period)
			}
		})

		// A liveness failure (failureThreshold in a row) kills the container — its preStop hook
		// first, as the kubelet's killContainer runs it for every kill — and the container restarts
		// at once as a new instance; the next crash waits out the 10 s backoff (CrashLoopBackOff).
		t.Run("liveness restarts", func(t *testing.T) {
			t.Parallel()
			const period, failure = 1, 2
			pod := b.helperPod(ns, "liveness", "FAIL_AFTER=2s")
			c := &pod.Spec.Containers[0]
			c.LivenessProbe = httpProbe("/healthz", 1, period, 1, failure) // a second for the helper to listen
			c.Lifecycle = &corev1.Lifecycle{PreStop: &corev1.LifecycleHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/prestop", Port: intstr.FromString("http")}}}
			created, l := b.create(t, pod)
			defer b.deletePod(t, created, l)
			running := l.first(t, "running", time.Time{}, 30*time.Second, func(p *corev1.Pod) bool {
				return containerStatus(p, "app").State.Running != nil
			})
			firstID := containerStatus(running.Pod, "app").ContainerID
			restarted := l.first(t, "restarted", running.At, 30*time.Second, func(p *corev1.Pod) bool {
				cs := containerStatus(p, "app")
				return cs.RestartCount == 1 && cs.State.Running != nil
			})
			cs := containerStatus(restarted.Pod, "app")
			if cs.ContainerID == firstID || cs.ContainerID == "" {
				t.Errorf("after the restart containerID %q, before %q: want a new one", cs.ContainerID, firstID)
			}
			if cs.LastTerminationState.Terminated == nil || cs.LastTerminationState.Terminated.ContainerID != firstID {
				t.Errorf("lastState %+v, want the killed instance %s", cs.LastTerminationState, firstID)
			}
			// The second instance fails the same way; its restart waits out the backoff.
			l.first(t, "CrashLoopBackOff", restarted.At, 30*time.Second, func(p *corev1.Pod) bool {
				w := containerStatus(p, "app").State.Waiting
				return w != nil && w.Reason == "CrashLoopBackOff"
			})
			var evs []helperEvent
			waitFor(t, "the third instance", 40*time.Second, func() (bool, error) {
				var err error
				evs, err = readEvents(b.eventsPath(created, "app"))
				return len(pick(evs, "start", "")) >= 3, err
			})
			starts := pick(evs, "start", "")
			of := func(pid int, name string) []helperEvent {
				var out []helperEvent
				for _, e := range pick(evs, name, "") {
					if e.PID == pid {
						out = append(out, e)
					}
				}
				return out
			}
			p1, p2 := starts[0].PID, starts[1].PID
			term := of(p1, "sigterm")
			if len(term) == 0 {
				t.Fatalf("first instance got no SIGTERM: %v", evs)
			}
			var fails []helperEvent
			for _, e := range withCode(before(pick(evs, "probe", "/healthz"), term[0].At), "503") {
				if e.PID == p1 {
					fails = append(fails, e)
				}
			}
			if len(fails) < failure {
				t.Fatalf("killed after %d failed liveness probes, failureThreshold %d: %v", len(fails), failure, evs)
			}
			if d := term[0].At.Sub(fails[failure-1].At); d > slack {
				t.Errorf("SIGTERM %s after failure %d, want within %s", secs(d), failure, slack)
			}
			if pre := of(p1, "prestop"); len(pre) == 0 || pre[0].At.After(term[0].At) {
				t.Errorf("preStop hook before the liveness kill's SIGTERM: got %v (SIGTERM %v)", pre, term[0])
			}
			if d := starts[1].At.Sub(term[0].At); d > slack {
				t.Errorf("first restart %s after the kill, want at once (within %s)", secs(d), slack)
			}
			exit2 := of(p2, "exit")
			if len(exit2) == 0 {
				t.Fatalf("second instance did not exit by SIGTERM: %v", evs)
			}
			if d := starts[2].At.Sub(exit2[0].At); d < backoffInitial-300*time.Millisecond || d > backoffInitial+slack {
				t.Errorf("second restart %s after the exit, want the %s backoff", secs(d), backoffInitial)
			}
		})

		// The startup probe gates readiness and liveness: neither runs before it succeeds; then the
		// readiness probe runs at once (the kubelet's status sync triggers it), not a period later.
		t.Run("startup gates readiness", func(t *testing.T) {
			t.Parallel()
			pod := b.helperPod(ns, "startup", "STARTED_AFTER=2s")
			c := &pod.Spec.Containers[0]
			c.StartupProbe = httpProbe("/startz", 0, 1, 1, 30)
			c.ReadinessProbe = httpProbe("/healthz?readiness", 0, 10, 1, 1)
			c.LivenessProbe = httpProbe("/healthz?liveness", 0, 1, 1, 1)
			created, l := b.create(t, pod)
			defer b.deletePod(t, created, l)
			ready := l.first(t, "Ready", time.Time{}, 30*time.Second, podReady)
			evs := b.events(t, created, "app")
			ok := withCode(pick(evs, "probe", "/startz"), "200")
			if len(ok) == 0 {
				t.Fatalf("Ready without a successful startup probe: %v", evs)
			}
			if early := before(pick(evs, "probe", "/healthz"), ok[0].At); len(early) > 0 {
				t.Errorf("probed before the startup probe succeeded: %v", early)
			}
			if d := ready.At.Sub(ok[0].At); d > slack {
				t.Errorf("Ready seen %s after the startup probe succeeded (readiness periodSeconds 10), want within %s", secs(d), slack)
			}
			for _, e := range l.entriesBefore(ok[0].At) {
				if podReady(e.Pod) || ptr.Deref(containerStatus(e.Pod, "app").Started, false) {
					t.Errorf("before the startup probe succeeded: %s %s", conditions(e.Pod), containerStates(e.Pod))
				}
			}
		})

		// A handler slower than timeoutSeconds is a failure; the same handler within a longer timeout
		// a success.
		t.Run("timeout", func(t *testing.T) {
			t.Parallel()
			slow := b.helperPod(ns, "timeout-short", "HEALTHZ_SLEEP=2s")
			slow.Spec.Containers[0].ReadinessProbe = httpProbe("/healthz", 0, 1, 1, 1)
			patient := b.helperPod(ns, "timeout-long", "HEALTHZ_SLEEP=2s")
			patient.Spec.Containers[0].ReadinessProbe = httpProbe("/healthz", 0, 1, 1, 1)
			patient.Spec.Containers[0].ReadinessProbe.TimeoutSeconds = 3
			s, sl := b.create(t, slow)
			defer b.deletePod(t, s, sl)
			p, pl := b.create(t, patient)
			defer b.deletePod(t, p, pl)
			pl.first(t, "Ready with timeoutSeconds 3", time.Time{}, 30*time.Second, podReady)
			waitFor(t, "3 probes of the 1 s timeout pod", 20*time.Second, func() (bool, error) {
				evs, err := readEvents(b.eventsPath(s, "app"))
				return len(pick(evs, "probe", "/healthz")) >= 3, err
			})
			time.Sleep(time.Second) // the third one's verdict
			for _, e := range sl.entriesBefore(time.Now()) {
				if podReady(e.Pod) {
					t.Fatalf("Ready although every probe took 2 s with timeoutSeconds 1: %s", conditions(e.Pod))
				}
			}
		})
	})
}
