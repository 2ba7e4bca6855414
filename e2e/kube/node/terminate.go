package node

import (
	"context"
	"net/http"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// minGraceSeconds is the least time SIGTERM gets before SIGKILL, whatever the preStop hook and a
// sidecar's wait took (the kubelet's minimumGracePeriodInSeconds).
const minGraceSeconds = 2

// beginTermination starts stopping a pod the API server marked for deletion (under mu), as the
// kubelet's killPod does: every running container is killed at once by killContainer's rules
// with the deletion's grace period (deletionGracePeriodSeconds: the DeleteOptions' or
// terminationGracePeriodSeconds); a sidecar's SIGTERM waits for the main containers and the next
// sidecar in spec order to exit (the kubelet's terminationOrdering: last started, first stopped).
// A container already being killed (liveness, a resize restart) finishes that kill.
func (w *podWorker) beginTermination() {
	w.terminating = true
	grace := w.graceSeconds()
	if w.pod.DeletionGracePeriodSeconds != nil {
		grace = *w.pod.DeletionGracePeriodSeconds
	}
	w.log()("pod terminating", "grace", grace)
	var mains []<-chan struct{}
	for _, c := range w.ctrs {
		if c.kind == kindMain && c.running() {
			mains = append(mains, c.proc.Done())
		}
	}
	var later <-chan struct{} // the exit of the next sidecar in spec order, if it runs
	for i := len(w.ctrs) - 1; i >= 0; i-- {
		c := w.ctrs[i]
		var after []<-chan struct{}
		if c.kind == kindSidecar {
			after = append(after, mains...)
			if later != nil {
				after = append(after, later)
			}
			later = nil
			if c.running() {
				later = c.proc.Done()
			}
		}
		if c.running() && !c.killing {
			w.killContainer(c, grace, after)
		}
	}
}

// killContainer stops c's running instance as the kubelet's killContainer does, for any reason
// (deletion, liveness or startup failure, a resize restart): the preStop hook first, bounded by
// grace, its whole seconds taken off grace; then, for a sidecar at deletion, its turn (every exit
// in after), bounded by what is left and taken off too; SIGTERM then gets what remains, at least
// minGraceSeconds, before SIGKILL. Called under mu; the kill runs on its own.
func (w *podWorker) killContainer(c *container, grace int64, after []<-chan struct{}) {
	c.killing = true
	pr, hook := c.proc, c.spec.Lifecycle
	go func() {
		if hook != nil && hook.PreStop != nil && grace > 0 {
			start := time.Now()
			ctx, cancel := context.WithTimeout(context.Background(), time.Duration(grace)*time.Second)
			w.preStop(ctx, c, hook.PreStop)
			cancel()
			grace -= int64(time.Since(start).Seconds())
		}
		if len(after) > 0 && grace > 0 {
			grace -= int64(waitAll(after, time.Duration(grace)*time.Second).Seconds())
		}
		pr.Stop(time.Duration(max(grace, minGraceSeconds)) * time.Second)
	}()
}

// waitAll waits for every channel to close, up to limit, and says how long it waited.
func waitAll(chs []<-chan struct{}, limit time.Duration) time.Duration {
	start := time.Now()
	timer := time.NewTimer(limit)
	defer timer.Stop()
	for _, ch := range chs {
		select {
		case <-ch:
		case <-timer.C:
			return time.Since(start)
		}
	}
	return time.Since(start)
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

// terminate finishes a terminating pod (under mu) once every container's exit is collected.
func (w *podWorker) terminate() {
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
