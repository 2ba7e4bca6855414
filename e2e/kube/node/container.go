package node

import (
	"fmt"
	"path/filepath"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/warmup-sidecar/warmup-sidecar/e2e/kube/launch"
	"github.com/warmup-sidecar/warmup-sidecar/e2e/proc"
)

// containerKind orders a pod's containers: init containers run to completion one by one, sidecars
// (init containers with restartPolicy Always) start in turn and keep running, then the main ones.
type containerKind int

const (
	kindInit containerKind = iota
	kindSidecar
	kindMain
)

// container is one container of a pod and its current instance (a process), if any.
type container struct {
	spec *corev1.Container
	kind containerKind

	id        string // "" until first started; a new id for every start
	proc      *proc.Proc
	startedAt time.Time
	started   bool // the startup probe succeeded (or there is none)
	ready     bool

	restarts  int
	term      *corev1.ContainerStateTerminated // the instance that exited, while it is not restarted
	lastTerm  *corev1.ContainerStateTerminated // the one before the running instance
	waiting   string                           // reason while not running
	message   string
	completed bool // an init container that exited 0

	backoff   time.Duration
	nextStart time.Time // restart not before (CrashLoopBackOff)
	killing   bool      // a stop was asked for (liveness, resize restart or pod deletion)

	probes   map[probeKind]*probeRules
	stopProb func() // stops the probe goroutines of this instance
}

// The kubelet's restart backoff: 10 s doubling to 5 min, reset after 10 min of running.
const (
	backoffInitial = 10 * time.Second
	backoffMax     = 5 * time.Minute
	backoffReset   = 10 * time.Minute
)

func (c *container) running() bool { return c.proc != nil && !c.proc.Exited() }

// launch starts the container's process inside its cgroup: a shell writes its own pid into the
// group's cgroup.procs files and execs the launcher's argv, so every thread the process ever has
// is in the group from its first instruction.
func (c *container) launch(l launch.Container, ln launch.Launcher, procsFiles []string, logDir string) error {
	p, err := ln.Process(l)
	if err != nil {
		return fmt.Errorf("container %s: %w", c.spec.Name, err)
	}
	script := `for f in "$@"; do case "$f" in --) break;; esac; echo $$ > "$f" || exit 126; shift; done; shift; exec "$@"`
	argv := append([]string{"/bin/sh", "-c", script, "sh"}, procsFiles...)
	argv = append(argv, "--")
	argv = append(argv, p.Argv...)
	pr, err := proc.Start(proc.Spec{
		Name: l.Pod + "/" + c.spec.Name, Argv: argv, Env: p.Env, Dir: p.Dir,
		Log: filepath.Join(logDir, c.spec.Name+".log"),
	})
	if err != nil {
		return err
	}
	if c.id != "" {
		c.restarts++
		c.lastTerm = c.term
	}
	c.id = "testbed://" + strconv.Itoa(pr.PID())
	c.proc, c.startedAt, c.term, c.waiting, c.message = pr, time.Now(), nil, "", ""
	c.started, c.ready, c.killing, c.completed = false, false, false, false
	return nil
}

// exited records the instance's end.
func (c *container) exited() {
	code, reason := c.proc.ExitCode()
	r := "Completed"
	if code != 0 {
		r = "Error"
	}
	if c.killing && code != 0 {
		r = "Error"
	}
	c.term = &corev1.ContainerStateTerminated{
		ExitCode: int32(code), Reason: r, Message: reason, ContainerID: c.id,
		StartedAt: metaTime(c.startedAt), FinishedAt: metaTime(time.Now()),
	}
	c.started, c.ready = false, false
	if c.kind == kindInit && code == 0 {
		c.completed = true
	}
	if c.stopProb != nil {
		c.stopProb()
		c.stopProb = nil
	}
}

// scheduleRestart sets when the next instance may start, as the kubelet's backoff does: the first
// restart at once, then 10 s doubling to 5 min, forgotten after 10 min of running.
func (c *container) scheduleRestart(now time.Time) {
	if now.Sub(c.startedAt) >= backoffReset {
		c.backoff = 0
	}
	c.nextStart = now.Add(c.backoff)
	if c.backoff > 0 {
		c.waiting = "CrashLoopBackOff"
	}
	if c.backoff == 0 {
		c.backoff = backoffInitial
	} else {
		c.backoff = min(2*c.backoff, backoffMax)
	}
}
