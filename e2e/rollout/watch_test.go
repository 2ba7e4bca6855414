package rollout

import (
	"reflect"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// pod builds a broker pod in one of the states the node agent reports.
func pod(running, ready, deleting bool, exitCode int32) *corev1.Pod {
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "pinot-broker-2"}}
	cs := corev1.ContainerStatus{Name: brokerCtr}
	switch {
	case running:
		cs.State.Running = &corev1.ContainerStateRunning{}
	case exitCode != 0:
		cs.State.Terminated = &corev1.ContainerStateTerminated{ExitCode: exitCode}
	default:
		cs.State.Waiting = &corev1.ContainerStateWaiting{Reason: "ContainerCreating"}
	}
	p.Status.ContainerStatuses = []corev1.ContainerStatus{cs}
	st := corev1.ConditionFalse
	if ready {
		st = corev1.ConditionTrue
	}
	p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: st}}
	if deleting {
		now := metav1.NewTime(time.Now())
		p.DeletionTimestamp = &now
	}
	return p
}

// restarted gives p's broker container n restarts, its last run ended by exit code.
func restarted(p *corev1.Pod, n, exitCode int32) *corev1.Pod {
	cs := &p.Status.ContainerStatuses[0]
	cs.RestartCount = n
	cs.LastTerminationState.Terminated = &corev1.ContainerStateTerminated{ExitCode: exitCode, Reason: "Error"}
	return p
}

// A restarted event says how many restarts and how the last run ended.
func TestRestartDetailSaysTheCountAndTheExit(t *testing.T) {
	if got, want := restartDetail(restarted(pod(true, false, false, 0), 2, 137)), "restart 2: exit 137 (Error)"; got != want {
		t.Errorf("restartDetail %q, want %q", got, want)
	}
	if got, want := restartDetail(pod(true, false, false, 0)), "restart 0"; got != want {
		t.Errorf("restartDetail with no last termination %q, want %q", got, want)
	}
}

// A pod's life as the API server reports it, one observation at a time: each transition is
// recorded once, in the order the rules say, and the end is exited or killed by the
// containers' last termination.
func TestTransitionsFollowThePodsStatus(t *testing.T) {
	for _, tc := range []struct {
		name string
		obs  []*corev1.Pod
		want []Kind
		end  Kind
	}{
		{"a life", []*corev1.Pod{
			pod(false, false, false, 0), // scheduled, containers not yet started
			pod(true, false, false, 0),  // created
			pod(true, false, false, 0),  // nothing new
			pod(true, true, false, 0),   // ready
			pod(true, false, false, 0),  // a failed probe run: not ready
			pod(true, true, false, 0),   // ready again
			pod(true, true, true, 0),    // deleted
			pod(true, false, true, 0),   // not ready while terminating
			pod(false, false, true, 143),
		}, []Kind{KindCreated, KindReady, KindNotReady, KindReady, KindDeleted, KindNotReady}, KindExited},
		{"killed at the grace period's end", []*corev1.Pod{
			pod(true, true, false, 0), pod(true, true, true, 0), pod(false, false, true, 137),
		}, []Kind{KindCreated, KindReady, KindDeleted, KindNotReady}, KindKilled},
		{"restarted in place by its liveness probe, three times: one event per restart", []*corev1.Pod{
			pod(true, true, false, 0),
			pod(true, false, false, 0),                    // liveness failing: not ready
			restarted(pod(true, false, false, 0), 1, 137), // the node agent killed and restarted it
			restarted(pod(true, false, false, 0), 1, 137), // nothing new
			restarted(pod(true, true, false, 0), 1, 137),
			restarted(pod(true, true, false, 0), 3, 137), // two restarts between observations
			restarted(pod(true, true, true, 0), 3, 137),
		}, []Kind{KindCreated, KindReady, KindNotReady, KindRestarted, KindReady, KindRestarted, KindRestarted, KindDeleted}, KindKilled},
		{"deleted before it started: no created, no ready", []*corev1.Pod{
			pod(false, false, false, 0), pod(false, false, true, 0),
		}, []Kind{KindDeleted}, KindExited},
	} {
		t.Run(tc.name, func(t *testing.T) {
			life := &podLife{}
			var got []Kind
			for _, p := range tc.obs {
				got = append(got, transitions(life, p)...)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("transitions %v, want %v", got, tc.want)
			}
			if end := gone(life, tc.obs[len(tc.obs)-1]); end != tc.end {
				t.Errorf("gone: %s, want %s", end, tc.end)
			}
		})
	}
}

// The SIGKILL is seen even when only the last status before the removal, or only an earlier one,
// carries it.
func TestKilledFromTheLastTermination(t *testing.T) {
	killed := pod(false, false, true, 0)
	killed.Status.ContainerStatuses[0].LastTerminationState.Terminated = &corev1.ContainerStateTerminated{ExitCode: 0, Signal: 9}
	if k := gone(&podLife{}, killed); k != KindKilled {
		t.Errorf("last termination by signal 9: %s, want killed", k)
	}
	if k := gone(&podLife{killed: true}, nil); k != KindKilled {
		t.Errorf("SIGKILL seen earlier, no final object: %s, want killed", k)
	}
	if k := gone(&podLife{}, nil); k != KindExited {
		t.Errorf("no SIGKILL seen: %s, want exited", k)
	}
}

func TestOrdinalIsTheNamesSuffix(t *testing.T) {
	for name, want := range map[string]int{"pinot-broker-0": 0, "pinot-broker-12": 12} {
		if n, err := ordinal(name); err != nil || n != want {
			t.Errorf("ordinal(%q) = %d, %v; want %d", name, n, err, want)
		}
	}
	for _, bad := range []string{"pinot-broker", "7", "pinot-broker-x"} {
		if _, err := ordinal(bad); err == nil {
			t.Errorf("ordinal(%q): no error", bad)
		}
	}
}

// The sidecar's port is its readiness probe's, by number or by the container port's name, as a
// main container or a native sidecar.
func TestSidecarPortFromTheProbe(t *testing.T) {
	probe := func(port string) *corev1.Probe {
		p := &corev1.Probe{}
		p.HTTPGet = &corev1.HTTPGetAction{Path: "/readyz"}
		if port == "9095" {
			p.HTTPGet.Port.IntVal = 9095
		} else {
			p.HTTPGet.Port.Type, p.HTTPGet.Port.StrVal = 1, port
		}
		return p
	}
	main := &corev1.Pod{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: brokerCtr}, {Name: sidecarCtr, ReadinessProbe: probe("9095")}}}}
	native := &corev1.Pod{Spec: corev1.PodSpec{InitContainers: []corev1.Container{{Name: sidecarCtr, ReadinessProbe: probe("http-warmup"),
		Ports: []corev1.ContainerPort{{Name: "http-warmup", ContainerPort: 9096}}}}}}
	for _, tc := range []struct {
		p    *corev1.Pod
		port int32
		ok   bool
	}{{main, 9095, true}, {native, 9096, true}, {&corev1.Pod{}, 0, false}} {
		if port, ok := sidecarPort(tc.p); port != tc.port || ok != tc.ok {
			t.Errorf("sidecarPort = %d %v, want %d %v", port, ok, tc.port, tc.ok)
		}
	}
}
