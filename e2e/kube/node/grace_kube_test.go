//go:build kube

package node

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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
		{name: "the deletion's shorter grace period", grace: 30, deleteGrace: ptr.To[int64](3), want: want{term: 0, gone: 3 * time.Second}},
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

	})
}
