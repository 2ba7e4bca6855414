//go:build kube

package node

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
)

// TestGracePeriod holds pod deletion to the kubelet's killContainer
// (pkg/kubelet/kuberuntime/kuberuntime_container.go): the grace period is the deletion's; the
// preStop hook runs first, bounded by it, and its time is taken off; a sidecar waits for the main
// containers (and later sidecars) to exit, that wait taken off too; SIGTERM then gets at least
// 2 s (minimumGracePeriodInSeconds) before SIGKILL. Each helper here ignores SIGTERM unless said
// otherwise, so the pod is gone exactly when SIGKILL comes.
func TestGracePeriod(t *testing.T) {
	b := startBed(t, "node-grace")
	defer b.stop()
	ns := "grace"
	b.namespace(t, ns)

	type want struct {
		term, gone time.Duration // SIGTERM and the pod's removal, after the delete call
	}
	sleepHook := func(s int64) *corev1.Lifecycle {
		return &corev1.Lifecycle{PreStop: &corev1.LifecycleHandler{Sleep: &corev1.SleepAction{Seconds: s}}}
	}
	cases := []struct {
		name        string
		grace       int64  // terminationGracePeriodSeconds
		deleteGrace *int64 // DeleteOptions.GracePeriodSeconds
		hook        *corev1.Lifecycle
		want        want
	}{
		{name: "SIGKILL when the grace period ends", grace: 3, want: want{term: 0, gone: 3 * time.Second}},
		{name: "preStop sleep delays SIGTERM", grace: 6, hook: sleepHook(2), want: want{term: 2 * time.Second, gone: 6 * time.Second}},
		// The hook is cut at the grace period; SIGTERM still gets its 2 s. (The API server refuses a
		// sleep of terminationGracePeriodSeconds or more: only a deletion's grace can be shorter.)
		{name: "preStop longer than the grace period", grace: 30, deleteGrace: ptr.To[int64](2), hook: sleepHook(5), want: want{term: 2 * time.Second, gone: 4 * time.Second}},
		{name: "the deletion's shorter grace period", grace: 30, deleteGrace: ptr.To[int64](3), want: want{term: 0, gone: 3 * time.Second}},
		{name: "a grace period under 2 s gives SIGTERM 2 s", grace: 30, deleteGrace: ptr.To[int64](1), want: want{term: 0, gone: 2 * time.Second}},
	}
	t.Run("group", func(t *testing.T) {
		for i, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				t.Parallel()
				pod := b.helperPod(ns, "grace-"+string(rune('a'+i)), "TERM_IGNORE=1")
				pod.Spec.TerminationGracePeriodSeconds = ptr.To(tc.grace)
				pod.Spec.Containers[0].Lifecycle = tc.hook
				created, l := b.create(t, pod)
				l.first(t, "running", time.Time{}, 30*time.Second, func(p *corev1.Pod) bool {
					return containerStatus(p, "app").State.Running != nil
				})
				waitFor(t, "the helper listening", 10*time.Second, func() (bool, error) {
					evs, err := readEvents(b.eventsPath(created, "app"))
					return len(pick(evs, "start", "")) > 0, err
				})
				t0 := time.Now()
				if err := b.admin.CoreV1().Pods(ns).Delete(context.Background(), pod.Name, metav1.DeleteOptions{GracePeriodSeconds: tc.deleteGrace}); err != nil {
					t.Fatal(err)
				}
				gone := l.goneAt(t, time.Minute).Sub(t0)
				evs := b.events(t, created, "app")
				terms := pick(evs, "sigterm", "")
				if len(terms) == 0 {
					t.Fatalf("no SIGTERM: %v", evs)
				}
				term := terms[0].At.Sub(t0)
				t.Logf("SIGTERM +%s, pod gone +%s (want +%s, +%s)", secs(term), secs(gone), secs(tc.want.term), secs(tc.want.gone))
				if term < tc.want.term || term > tc.want.term+slack {
					t.Errorf("SIGTERM %s after the delete, want %s (+%s)", secs(term), secs(tc.want.term), slack)
				}
				if gone < tc.want.gone || gone > tc.want.gone+slack {
					t.Errorf("pod gone %s after the delete, want %s (+%s): SIGKILL then", secs(gone), secs(tc.want.gone), slack)
				}
				last := containerStatus(l.lastPod(), "app")
				if tm := last.State.Terminated; tm == nil || tm.ExitCode != 137 {
					t.Errorf("last status of the container %+v, want terminated by SIGKILL (exit code 137)", last.State)
					for _, e := range l.entriesBefore(time.Now()) {
						t.Logf("%s rv %s gen %d del %v: %s", e.At.Format("15:04:05.000"), e.Pod.ResourceVersion, e.Pod.Generation, e.Pod.DeletionTimestamp, containerStates(e.Pod))
					}
				}
			})
		}

		// Native sidecars stop after the main container exits, the later sidecar first; their preStop
		// hooks run at once, as the kubelet runs every container's hook before the sidecar's wait.
		t.Run("sidecars after the main container", func(t *testing.T) {
			t.Parallel()
			always := corev1.ContainerRestartPolicyAlways
			pod := b.helperPod(ns, "sidecars", "TERM_DELAY=2s")
			pod.Spec.TerminationGracePeriodSeconds = ptr.To[int64](20)
			for i, name := range []string{"early", "late"} {
				c := helperContainer(name, int32(8081+i), "TERM_DELAY=1s")
				c.RestartPolicy = &always
				c.Lifecycle = &corev1.Lifecycle{PreStop: &corev1.LifecycleHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/prestop", Port: intstr.FromInt32(c.Ports[0].ContainerPort)}}}
				pod.Spec.InitContainers = append(pod.Spec.InitContainers, c)
			}
			created, l := b.create(t, pod)
			l.first(t, "running", time.Time{}, 30*time.Second, func(p *corev1.Pod) bool {
				return containerStatus(p, "app").State.Running != nil
			})
			waitFor(t, "the main helper listening", 10*time.Second, func() (bool, error) {
				evs, err := readEvents(b.eventsPath(created, "app"))
				return len(pick(evs, "start", "")) > 0, err
			})
			t0 := time.Now()
			if err := b.admin.CoreV1().Pods(ns).Delete(context.Background(), pod.Name, metav1.DeleteOptions{}); err != nil {
				t.Fatal(err)
			}
			gone := l.goneAt(t, time.Minute).Sub(t0)
			one := func(ctr, name string) time.Time {
				evs := pick(b.events(t, created, ctr), name, "")
				if len(evs) == 0 {
					t.Fatalf("%s: no %s event", ctr, name)
				}
				return evs[0].At
			}
			mainExit := one("app", "exit")
			lateTerm, lateExit, earlyTerm := one("late", "sigterm"), one("late", "exit"), one("early", "sigterm")
			t.Logf("main SIGTERM +%s exit +%s; late preStop +%s SIGTERM +%s exit +%s; early preStop +%s SIGTERM +%s; gone +%s",
				secs(one("app", "sigterm").Sub(t0)), secs(mainExit.Sub(t0)), secs(one("late", "prestop").Sub(t0)), secs(lateTerm.Sub(t0)),
				secs(lateExit.Sub(t0)), secs(one("early", "prestop").Sub(t0)), secs(earlyTerm.Sub(t0)), secs(gone))
			if lateTerm.Before(mainExit) {
				t.Errorf("sidecar late got SIGTERM %s before the main container exited", secs(mainExit.Sub(lateTerm)))
			}
			if earlyTerm.Before(lateExit) {
				t.Errorf("sidecar early got SIGTERM %s before the later sidecar exited", secs(lateExit.Sub(earlyTerm)))
			}
			if d := lateTerm.Sub(mainExit); d > slack {
				t.Errorf("sidecar late got SIGTERM %s after the main container exited, want within %s", secs(d), slack)
			}
			for _, ctr := range []string{"early", "late"} {
				if d := one(ctr, "prestop").Sub(t0); d > slack {
					t.Errorf("sidecar %s: preStop hook %s after the delete, want at once (within %s)", ctr, secs(d), slack)
				}
			}
			if gone > 4*time.Second+slack {
				t.Errorf("pod gone %s after the delete: 2 s + 1 s + 1 s of TERM_DELAY, want within %s more", secs(gone), slack)
			}
		})
	})
}
