package cpuboost

import (
	"context"
	"fmt"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/pkg/backoff"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/kubeapi"
)

// after is what a reading of the pod calls for next, in the give-back.
type after int

const (
	afterDone         after = iota // given back
	afterReadSoon                  // the kubelet applies it: read again at the confirm pace
	afterReadSlowly                // failed, the spec needs no resize: read again at the slow pace
	afterResizeSlowly              // failed, the spec is above the target: resize at the slow pace
)

// giveBack resizes the broker container to the target and follows the pod until the kubelet
// runs it there; it returns then, or when ctx ends. Each call that fails is made again: an
// error worth retrying at a doubling wait, MaxAttempts in a row, then (reported failed) at the
// slow pace; a refusal at the slow pace at once. A pod already at the target, or that the
// target cannot fit, is not resized: it is read.
func (r *Runner) giveBack(ctx context.Context) {
	var pod *kubeapi.Pod
	if r.last != nil && !r.boosted {
		pod = r.last
	} else {
		r.set(StateGivingBack, "resizing the broker container to the target CPU")
	}
	resize := pod == nil
	tries, confirm := r.s.retries(), r.s.Confirm
	for {
		var wait time.Duration
		if pod == nil {
			p, err := r.call(ctx, resize)
			if ctx.Err() != nil {
				return // stopping: not the API server's fault
			}
			if err != nil {
				if !r.Sleep(ctx, r.callFailed(err, resize, &tries, &confirm)) {
					return
				}
				continue
			}
			tries.reset()
			if resize {
				confirm.Reset()
			}
			pod = &p
		}
		switch r.judge(*pod) {
		case afterDone:
			return
		case afterReadSoon:
			resize, wait = false, confirm.Next()
		case afterReadSlowly:
			resize, wait = false, r.s.SlowRetry
		case afterResizeSlowly:
			resize, wait = true, r.s.SlowRetry
		}
		pod = nil
		if !r.Sleep(ctx, wait) {
			return
		}
	}
}

// judge reports one reading of the pod (a read's, or a resize's answer) and says what next.
func (r *Runner) judge(pod kubeapi.Pod) after {
	kind, spec, why := r.s.specOf(pod)
	r.noteRead(pod, kind, spec)
	switch kind {
	case specWrong:
		r.fail(why, r.readAgain())
		return afterReadSlowly
	case specAbove:
		// Resized up again, by another client: the sidecar only gives back, slowly, so that it
		// does not race that client.
		r.fail(fmt.Sprintf("the pod's broker container CPU is request %q, limit %q, above the target: another client resized it", spec.Request, spec.Limit), r.resizeAgain())
		return afterResizeSlowly
	}
	state, reason, applied := r.s.kubeletSays(pod)
	if applied != nil {
		r.st.Applied = applied
	}
	switch state {
	case StateGivenBack:
		r.set(StateGivenBack, reason)
		return afterDone
	case StateFailed:
		// The spec is at the target already: the kubelet is to be read, not resized again.
		r.fail(reason, r.readAgain())
		return afterReadSlowly
	}
	r.set(StateGivingBack, reason)
	return afterReadSoon
}

// callFailed reports a failed call and says the wait before the next one.
func (r *Runner) callFailed(err error, resize bool, tries *retries, confirm *backoff.Doubling) time.Duration {
	r.st.LastError = err.Error()
	if !resize {
		if why := refused(err, false, r.last != nil); why != "" {
			r.fail(why, r.readAgain())
			return r.s.SlowRetry
		}
		// The give-back waits on the pod's reading at the pace it was at.
		r.Report.Set(r.st)
		if r.st.State == StateFailed {
			return r.s.SlowRetry
		}
		return confirm.Next()
	}
	if why := refused(err, true, r.last != nil); why != "" {
		tries.reset()
		r.fail(why, r.resizeAgain())
		return r.s.SlowRetry
	}
	wait, slow := tries.failed()
	if slow {
		r.fail(fmt.Sprintf("the resize failed %d times in a row on errors worth retrying (no answer, 401, 409, 429, 5xx; the last in last_error)", r.s.MaxAttempts), r.resizeAgain())
		return wait
	}
	r.set(StateGivingBack, fmt.Sprintf("resize attempt %d of %d failed, next in %s", tries.inARow, r.s.MaxAttempts, wait))
	return wait
}
