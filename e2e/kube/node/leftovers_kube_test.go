//go:build kube

package node

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
)

// TestNothingLeftBehind: a process a container started in its own session (out of reach of the
// container's process group) dies with the pod's cgroup, whether the pod is deleted or the agent
// stops with it running; once the agent has stopped no group and no process is left under the
// test bed's root, and the root itself can be removed.
func TestNothingLeftBehind(t *testing.T) {
	t.Run("pod deleted", func(t *testing.T) {
		b := startBed(t, "node-left")
		defer b.stop()
		ns := "left"
		b.namespace(t, ns)
		created, l := b.create(t, b.helperPod(ns, "spawner", "SPAWN=1"))
		child := b.childOf(t, created.UID, created, "app")
		b.deletePod(t, created, l)
		if alive(child) {
			t.Errorf("the container's child %d (sleep 300, own session) outlived its pod", child)
		}
		groups, pids := b.agent.Leftovers()
		if len(groups) > 0 || len(pids) > 0 {
			t.Errorf("after the pod is gone: cgroups %v, processes %v", groups, pids)
		}
	})

	t.Run("agent stopped", func(t *testing.T) {
		b := startBed(t, "node-stop")
		defer b.stop()
		ns := "stop"
		b.namespace(t, ns)
		var children []int
		for _, name := range []string{"stubborn", "plain"} {
			env := []string{"SPAWN=1"}
			if name == "stubborn" {
				env = append(env, "TERM_IGNORE=1")
			}
			created, _ := b.create(t, b.helperPod(ns, name, env...))
			children = append(children, b.childOf(t, created.UID, created, "app"))
		}
		if err := b.stopAgent(); err != nil {
			t.Fatalf("agent: %v", err)
		}
		groups, pids := b.agent.Leftovers()
		if len(groups) > 0 || len(pids) > 0 {
			t.Errorf("after the agent stopped: cgroups %v, processes %v", groups, pids)
		}
		for _, c := range children {
			if alive(c) {
				t.Errorf("a container's child %d outlived the agent", c)
			}
		}
		if err := b.agent.Close(); err != nil {
			t.Errorf("removing the test bed's cgroup root: %v", err)
		}
		for _, d := range []string{b.agent.cg.cpuRoot, b.agent.cg.acctRoot} {
			if _, err := os.Stat(d); !os.IsNotExist(err) {
				t.Errorf("%s still there after Close (%v)", d, err)
			}
		}
	})

	// A root left by a killed run (named <prefix>-<pid>, the pid gone) is removed with whatever
	// still runs in it; a live run's root is kept.
	t.Run("RemoveStale", func(t *testing.T) {
		prefix := fmt.Sprintf("warmup-testbed-staletest%d", os.Getpid())
		dead := exec.Command("true")
		if err := dead.Run(); err != nil {
			t.Fatal(err)
		}
		live := exec.Command("sleep", "300")
		if err := live.Start(); err != nil {
			t.Fatal(err)
		}
		defer func() { _ = live.Process.Kill(); _ = live.Wait() }()
		stale := &cgroups{
			cpuRoot:  filepath.Join("/sys/fs/cgroup/cpu", fmt.Sprintf("%s-%d", prefix, dead.Process.Pid)),
			acctRoot: filepath.Join("/sys/fs/cgroup/cpuacct", fmt.Sprintf("%s-%d", prefix, dead.Process.Pid)),
		}
		kept := &cgroups{
			cpuRoot:  filepath.Join("/sys/fs/cgroup/cpu", fmt.Sprintf("%s-%d", prefix, live.Process.Pid)),
			acctRoot: filepath.Join("/sys/fs/cgroup/cpuacct", fmt.Sprintf("%s-%d", prefix, live.Process.Pid)),
		}
		defer kept.remove("")
		defer stale.remove("")
		for _, cg := range []*cgroups{stale, kept} {
			if err := cg.ensure("podx/app", CPU{Shares: 2, QuotaUs: -1}); err != nil {
				t.Fatal(err)
			}
		}
		// What a killed run can leave: a process that escaped its process group, still in the group.
		orphan := exec.Command("sleep", "300")
		orphan.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		if err := orphan.Start(); err != nil {
			t.Fatal(err)
		}
		reaped := make(chan struct{})
		go func() { _ = orphan.Wait(); close(reaped) }()
		defer func() { _ = orphan.Process.Kill() }()
		for _, f := range stale.procsFiles("podx/app") {
			if err := os.WriteFile(f, []byte(strconv.Itoa(orphan.Process.Pid)), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		removed := RemoveStale(prefix)
		want := []string{stale.cpuRoot, stale.acctRoot}
		if strings.Join(removed, ",") != strings.Join(want, ",") {
			t.Errorf("RemoveStale removed %v, want %v", removed, want)
		}
		select {
		case <-reaped:
		case <-time.After(5 * time.Second):
			t.Errorf("the process in the stale root (%d) still runs", orphan.Process.Pid)
		}
		for _, d := range want {
			if _, err := os.Stat(d); !os.IsNotExist(err) {
				t.Errorf("%s still there (%v)", d, err)
			}
		}
		for _, d := range []string{kept.cpuRoot, kept.acctRoot} {
			if _, err := os.Stat(d); err != nil {
				t.Errorf("a live run's root %s: %v", d, err)
			}
		}
	})
}

// childOf waits for the helper container ctr of pod to report the child it spawned, and checks
// the child runs in the container's cgroup.
func (b *bed) childOf(t *testing.T, uid types.UID, pod *corev1.Pod, ctr string) int {
	t.Helper()
	var child int
	waitFor(t, pod.Name+": its child spawned", 30*time.Second, func() (bool, error) {
		evs, err := readEvents(b.eventsPath(pod, ctr))
		if c := pick(evs, "child", ""); len(c) > 0 {
			child, err = strconv.Atoi(c[0].Detail[0])
			return err == nil, err
		}
		if err == nil {
			err = fmt.Errorf("events %v", evs)
		}
		return false, err
	})
	found := false
	for _, p := range b.agent.cg.pids(PodCgroup(uid) + "/" + ctr) {
		found = found || p == child
	}
	if !found {
		t.Fatalf("%s: child %d not in the container's cgroup (%v)", pod.Name, child, b.agent.cg.pids(PodCgroup(uid)))
	}
	return child
}

// alive says pid still runs (a zombie counts as gone).
func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	// state is the field after the parenthesised command
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}
