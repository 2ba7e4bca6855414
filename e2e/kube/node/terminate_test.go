package node

import (
	"context"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/warmup-sidecar/warmup-sidecar/e2e/proc"
)

// A terminating pod whose last process has exited, its exit not yet collected (it died between
// reconcile's collection and terminate's check: SIGKILL a moment ago), is not finished yet: the
// last status the agent writes must say how the container ended (terminated, its exit code), as
// the kubelet's final status does, not show a container neither running nor terminated.
func TestTerminateWaitsForTheExit(t *testing.T) {
	dir := t.TempDir()
	p, err := proc.Start(proc.Spec{Name: "t", Argv: []string{"/bin/sh", "-c", "exit 3"}, Log: filepath.Join(dir, "log")})
	if err != nil {
		t.Fatal(err)
	}
	<-p.Done()
	now := metav1.Now()
	a := &Agent{o: Options{Log: slog.New(slog.DiscardHandler)}, cg: &cgroups{cpuRoot: dir, acctRoot: dir}, allocated: map[types.UID]int64{}}
	w := newPodWorker(a, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns", UID: "u", DeletionTimestamp: &now}})
	w.setupAt, w.terminating = time.Now(), true
	c := &container{spec: &corev1.Container{Name: "app"}, kind: kindMain, id: "testbed://1", proc: p, startedAt: time.Now(), started: true, ready: true}
	w.ctrs = []*container{c}

	w.mu.Lock()
	w.terminate()
	w.mu.Unlock()
	if w.finished {
		t.Fatalf("finished before the exit was collected: the last status shows %+v", w.containerStatus(c).State)
	}
	w.reconcile(context.Background())
	if !w.finished {
		t.Fatal("not finished once the exit was collected")
	}
	st := w.containerStatus(c)
	if st.State.Terminated == nil || st.State.Terminated.ExitCode != 3 || st.Ready {
		t.Errorf("last status %+v ready %v, want terminated with exit code 3, not ready", st.State, st.Ready)
	}
}
