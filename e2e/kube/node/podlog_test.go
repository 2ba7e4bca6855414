//go:build kube

package node

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/watch"
)

// podLog is every watch event of one pod with the local time it arrived.
type podLog struct {
	mu      sync.Mutex
	entries []podEntry
	gone    time.Time // when the DELETED event arrived
	changed chan struct{}
}

type podEntry struct {
	At  time.Time
	Pod *corev1.Pod
}

// create creates pod and watches it from its creation on until it is deleted or the test ends.
func (b *bed) create(t *testing.T, pod *corev1.Pod) (*corev1.Pod, *podLog) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	created, err := b.admin.CoreV1().Pods(pod.Namespace).Create(ctx, pod, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create pod %s: %v", pod.Name, err)
	}
	w, err := b.admin.CoreV1().Pods(pod.Namespace).Watch(ctx, metav1.ListOptions{
		FieldSelector: fields.OneTermEqualSelector("metadata.name", pod.Name).String(), ResourceVersion: created.ResourceVersion,
	})
	if err != nil {
		t.Fatalf("watch pod %s: %v", pod.Name, err)
	}
	l := &podLog{changed: make(chan struct{}, 1)}
	go func() {
		defer w.Stop()
		for ev := range w.ResultChan() {
			now := time.Now()
			p, ok := ev.Object.(*corev1.Pod)
			if !ok || p.UID != created.UID {
				continue
			}
			l.mu.Lock()
			if ev.Type == watch.Deleted {
				l.gone = now
			} else {
				l.entries = append(l.entries, podEntry{At: now, Pod: p})
			}
			l.mu.Unlock()
			select {
			case l.changed <- struct{}{}:
			default:
			}
			if ev.Type == watch.Deleted {
				return
			}
		}
	}()
	return created, l
}

// first is the first state at or after from for which pred holds, waiting up to d for it.
func (l *podLog) first(t *testing.T, what string, from time.Time, d time.Duration, pred func(*corev1.Pod) bool) podEntry {
	t.Helper()
	deadline := time.NewTimer(d)
	defer deadline.Stop()
	for {
		l.mu.Lock()
		for _, e := range l.entries {
			if !e.At.Before(from) && pred(e.Pod) {
				l.mu.Unlock()
				return e
			}
		}
		l.mu.Unlock()
		select {
		case <-l.changed:
		case <-time.After(100 * time.Millisecond):
		case <-deadline.C:
			t.Fatalf("%s: not within %s; last state %s", what, d, l.last())
		}
	}
}

// last describes the newest state (for failure messages).
func (l *podLog) last() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.entries) == 0 {
		return "none"
	}
	p := l.entries[len(l.entries)-1].Pod
	return fmt.Sprintf("phase %s, conditions %s, containers %s", p.Status.Phase, conditions(p), containerStates(p))
}

// goneAt waits up to d for the pod's deletion and returns when it was seen.
func (l *podLog) goneAt(t *testing.T, d time.Duration) time.Time {
	t.Helper()
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		l.mu.Lock()
		g := l.gone
		l.mu.Unlock()
		if !g.IsZero() {
			return g
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("pod not deleted within %s; last state %s", d, l.last())
	return time.Time{}
}

// lastPod is the newest state seen.
func (l *podLog) lastPod() *corev1.Pod {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.entries) == 0 {
		return nil
	}
	return l.entries[len(l.entries)-1].Pod
}

func conditions(p *corev1.Pod) string {
	var s []string
	for _, c := range p.Status.Conditions {
		s = append(s, fmt.Sprintf("%s=%s", c.Type, c.Status))
	}
	return strings.Join(s, ",")
}

func containerStates(p *corev1.Pod) string {
	var s []string
	for _, cs := range append(append([]corev1.ContainerStatus{}, p.Status.InitContainerStatuses...), p.Status.ContainerStatuses...) {
		st := "?"
		switch {
		case cs.State.Running != nil:
			st = "running"
		case cs.State.Waiting != nil:
			st = "waiting:" + cs.State.Waiting.Reason
		case cs.State.Terminated != nil:
			st = fmt.Sprintf("terminated:%d", cs.State.Terminated.ExitCode)
		}
		s = append(s, fmt.Sprintf("%s %s ready=%v restarts=%d", cs.Name, st, cs.Ready, cs.RestartCount))
	}
	return strings.Join(s, "; ")
}

func podReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

func readyCondition(p *corev1.Pod) corev1.PodCondition {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c
		}
	}
	return corev1.PodCondition{}
}

func containerStatus(p *corev1.Pod, name string) corev1.ContainerStatus {
	for _, cs := range append(append([]corev1.ContainerStatus{}, p.Status.InitContainerStatuses...), p.Status.ContainerStatuses...) {
		if cs.Name == name {
			return cs
		}
	}
	return corev1.ContainerStatus{}
}

// entriesBefore is every state seen before t.
func (l *podLog) entriesBefore(t time.Time) []podEntry {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []podEntry
	for _, e := range l.entries {
		if e.At.Before(t) {
			out = append(out, e)
		}
	}
	return out
}
