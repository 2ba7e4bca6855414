package cpuboost

import (
	"context"
	"time"
)

// hold keeps the boost until the evidence says give back (true, GiveBackBecause set), or ctx
// ends (false). It reads the pod until it has one boosted as expected: a failed read is
// retried (fast, then slowly; a refusal slowly), and the maximum boost time counts meanwhile.
// A pod already at the target (the sidecar restarted after the give-back) ends it at once: to
// be confirmed, not resized.
func (r *Runner) hold(ctx context.Context) bool {
	s := r.s
	reads := s.retries()
	next := r.Now()
	for {
		if !r.boosted && !r.Now().Before(next) {
			wait, atTarget := r.readPod(ctx, &reads)
			if ctx.Err() != nil {
				return false
			}
			if atTarget {
				return true
			}
			next = r.Now().Add(wait)
		}
		r.ev.jit = r.jit.read(ctx, r.Now)
		r.ev.now = r.Now()
		if !r.Gate.IsOpen() {
			r.ev.openSince = time.Time{}
		} else if r.ev.openSince.IsZero() {
			r.ev.openSince = r.ev.now
		}
		if why := s.due(r.ev); why != "" {
			r.st.GiveBackBecause = why
			return true
		}
		r.st.WaitingFor = s.waiting(r.ev)
		r.Report.Set(r.st)
		if !r.Sleep(ctx, s.Tick) {
			return false
		}
	}
}

// readPod reads the pod once while boosted, and says when to read it again.
func (r *Runner) readPod(ctx context.Context, reads *retries) (wait time.Duration, atTarget bool) {
	pod, err := r.call(ctx, false)
	if err != nil {
		if ctx.Err() != nil {
			return 0, false
		}
		r.st.LastError = err.Error()
		if why := refused(err, false, r.last != nil); why != "" {
			reads.reset()
			r.fail(why, r.readAgain())
			return r.s.SlowRetry, false
		}
		wait, _ = reads.failed()
		r.Report.Set(r.st)
		return wait, false
	}
	reads.reset()
	kind, spec, why := r.s.specOf(pod)
	r.noteRead(pod, kind, spec)
	switch kind {
	case specWrong:
		r.fail(why, r.readAgain())
		return r.s.SlowRetry, false
	case specAtTarget:
		r.st.GiveBackBecause = "the broker container's CPU was already the target when the sidecar started (a sidecar restarted after the give-back, or a pod created without the boost)"
		r.set(StateGivingBack, "confirming that the kubelet runs the broker container at the target CPU")
		return 0, true
	}
	if r.st.State != StateBoosted {
		r.set(StateBoosted, boostedReason)
	} else {
		r.Report.Set(r.st)
	}
	return 0, false
}
