package node

import (
	"context"
	"net/http"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// beginTermination starts stopping a pod the API server marked for deletion (under mu), as the
// kubelet's killPod does: the grace period is the deletion's (deletionGracePeriodSeconds, which
// the API server took from terminationGracePeriodSeconds), counted from now; each main container
// runs its preStop hook, then gets SIGTERM; sidecars are stopped after every main container has
// exited, last started first; whatever runs when the grace period ends gets SIGKILL.
func (w *podWorker) beginTermination(now time.Time) {
	w.terminating = true
	grace := w.graceSeconds()
	if w.pod.DeletionGracePeriodSeconds != nil {
		grace = *w.pod.DeletionGracePeriodSeconds
	}
	w.deadline = now.Add(time.Duration(grace) * time.Second)
	w.log()("pod terminating", "grace", grace)
	for _, c := range w.ctrs {
		if c.kind == kindMain && c.running() && !c.killing {
			w.stopContainer(c)
		}
	}
}

// stopContainer runs c's preStop hook (bounded by the pod's deadline), then sends SIGTERM.
func (w *podWorker) stopContainer(c *container) {
	c.killing = true
	pr, hook, deadline := c.proc, c.spec.Lifecycle, w.deadline
	go func() {
		if hook != nil && hook.PreStop != nil {
			ctx, cancel := context.WithDeadline(context.Background(), deadline)
			w.preStop(ctx, c, hook.PreStop)
			cancel()
		}
		pr.Signal(syscall.SIGTERM)
	}()
}

// preStop runs a hook: sleep, or an HTTP GET against the container; an exec hook cannot run here
// (no container to exec into) and is logged as failed, as a failing hook is.
func (w *podWorker) preStop(ctx context.Context, c *container, h *corev1.LifecycleHandler) {
	switch {
	case h.Sleep != nil:
		select {
		case <-ctx.Done():
		case <-time.After(time.Duration(h.Sleep.Seconds) * time.Second):
		}
	case h.HTTPGet != nil:
		port, err := resolvePort(h.HTTPGet.Port, c.spec.Ports)
		if err == nil {
			var addr string
			if addr, err = w.hostAddr(port); err == nil {
				var req *http.Request
				if req, err = http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+h.HTTPGet.Path, nil); err == nil {
					var resp *http.Response
					if resp, err = http.DefaultClient.Do(req); err == nil {
						resp.Body.Close()
					}
				}
			}
		}
		if err != nil {
			w.log()("preStop hook failed", "container", c.spec.Name, "err", err)
		}
	default:
		w.log()("preStop hook failed", "container", c.spec.Name, "err", "exec hooks cannot run on the test bed")
	}
}

// terminate advances a terminating pod (under mu): sidecars once the main containers are gone,
// SIGKILL at the deadline, finished once every container's exit is collected.
func (w *podWorker) terminate(now time.Time) {
	mainRunning := false
	for _, c := range w.ctrs {
		if c.kind == kindMain && c.running() {
			mainRunning = true
		}
	}
	if !mainRunning {
		// Sidecars in reverse order: each once the ones started after it have exited.
		for i := len(w.ctrs) - 1; i >= 0; i-- {
			c := w.ctrs[i]
			if c.kind != kindSidecar || !c.running() {
				continue
			}
			if !c.killing {
				w.stopContainer(c)
			}
			break
		}
	}
	if now.After(w.deadline) {
		for _, c := range w.ctrs {
			if c.running() {
				c.proc.Signal(syscall.SIGKILL)
			}
		}
	}
	// Finished once every instance's exit is collected (reconcile does that before terminate), so
	// the last status says how each container ended: one SIGKILLed a moment ago is no longer
	// running but has no terminated state yet.
	for _, c := range w.ctrs {
		if c.proc != nil && c.term == nil {
			return
		}
	}
	if !w.finished {
		w.mu.Unlock()
		w.cleanup()
		w.mu.Lock()
		w.finished = true
		w.log()("pod stopped")
	}
}
