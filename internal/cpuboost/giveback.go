package cpuboost

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/warmup-sidecar/warmup-sidecar/internal/report"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/kubeapi"
)

// giveBack resizes the broker container to the target, retrying a transient failure with a
// doubling wait up to MaxAttempts, then waits for the kubelet to apply it.
func (r *Runner) giveBack(ctx context.Context, why string) {
	r.st.GiveBackBecause = why
	r.transition(StateGivingBack, "resizing the broker container to the target CPU")
	wait := r.s.Retry
	for attempt := 1; ; attempt++ {
		r.st.Attempts = attempt
		cctx, cancel := context.WithTimeout(ctx, r.s.CallTimeout)
		pod, err := r.Pods.ResizeCPU(cctx, r.s.Container, r.s.Target)
		cancel()
		if ctx.Err() != nil {
			return // stopping: not the API server's fault
		}
		if err == nil {
			r.st.LastError = ""
			r.confirm(ctx, pod)
			return
		}
		r.st.LastError = err.Error()
		if why := r.refused(err); why != "" {
			r.fail(why)
			return
		}
		if attempt >= r.s.MaxAttempts {
			r.fail(fmt.Sprintf("the resize failed %d times in a row, the last: %v", attempt, err))
			return
		}
		next := wait.Next()
		r.st.Reason = fmt.Sprintf("resize attempt %d of %d failed, next in %s", attempt, r.s.MaxAttempts, next)
		r.Report.Set(r.st)
		if !r.Sleep(ctx, next) {
			return
		}
	}
}

// refused says why a failed resize is final ("" for one worth retrying: no answer, 409, 429,
// 5xx, an expired token).
func (r *Runner) refused(err error) string {
	var ae *kubeapi.Error
	if !errors.As(err, &ae) {
		return ""
	}
	switch {
	case ae.Forbidden() && rbacDenial(ae):
		return "no permission to resize the pod: " + rbacHint + ": " + err.Error()
	case ae.Forbidden():
		// An admission plugin's refusal (a node the API server does not know, a policy), not RBAC's.
		return "the API server forbade the resize: " + err.Error()
	case ae.NotFound() && r.podRead:
		return "the API server has no resize subresource for this pod (in-place resize needs Kubernetes 1.33 or later, InPlacePodVerticalScaling): " + err.Error()
	case ae.NotFound():
		return "the pod was not found: WARMUP_POD_NAME and WARMUP_POD_NAMESPACE must name it: " + err.Error()
	case ae.Permanent():
		return "the API server refused the resize: " + err.Error()
	}
	return ""
}

// confirm follows the pod until the kubelet runs the broker container at the target (given
// back), refuses the resize as infeasible (failed), or ctx ends. A deferred resize is the
// kubelet's to retry: it is reported and waited for.
func (r *Runner) confirm(ctx context.Context, pod kubeapi.Pod) {
	wait := r.s.Confirm
	for !r.applied(pod) {
		if r.st.State == StateFailed || !r.Sleep(ctx, wait.Next()) {
			return
		}
		p, err := r.getPod(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			r.st.LastError = err.Error()
			r.Report.Set(r.st)
			continue
		}
		r.st.LastError = ""
		pod = p
	}
}

// applied judges one reading of the pod: true once the give-back is done, or failed.
func (r *Runner) applied(pod kubeapi.Pod) bool {
	c, ok := pod.Container(r.s.Container)
	if !ok {
		r.fail(fmt.Sprintf("the pod has no container named %q any more", r.s.Container))
		return true
	}
	req, lim := c.Resources.CPU()
	r.st.Spec = &report.CPUBoostCPU{Request: req, Limit: lim}
	if !r.atTarget(req, lim) {
		r.fail(fmt.Sprintf("the pod's broker container CPU is request %q, limit %q, not the target: another client resized it", req, lim))
		return true
	}
	if cs, ok := pod.ContainerStatus(r.s.Container); ok && cs.Resources != nil {
		areq, alim := cs.Resources.CPU()
		r.st.Applied = &report.CPUBoostCPU{Request: areq, Limit: alim}
	}
	var reason string
	pending, isPending := pod.Condition(kubeapi.ConditionResizePending)
	switch {
	case isPending && pending.Reason == kubeapi.ReasonInfeasible:
		r.fail("the kubelet refused the resize as Infeasible: " + pending.Message)
		return true
	case isPending:
		reason = fmt.Sprintf("the kubelet has not applied the resize yet (%s): %s", pending.Reason, pending.Message)
	case r.st.Applied == nil:
		reason = "the API server accepted the resize; waiting for the kubelet to report the container's resources"
	case condition(pod, kubeapi.ConditionResizeInProgress):
		reason = "the kubelet is applying the resize"
	case !r.atTarget(r.st.Applied.Request, r.st.Applied.Limit):
		reason = "the API server accepted the resize; the kubelet still runs the container at its old CPU"
	default:
		r.transition(StateGivenBack, fmt.Sprintf("the kubelet runs the broker container at the target CPU (%s)", describeCPU(r.s.Target)))
		return true
	}
	if reason != r.st.Reason {
		r.st.Reason = reason
		r.Report.Set(r.st)
	}
	return false
}

func condition(pod kubeapi.Pod, kind string) bool {
	_, ok := pod.Condition(kind)
	return ok
}

func describeCPU(c kubeapi.CPU) string {
	switch {
	case c.Request != "" && c.Limit != "":
		return "request " + c.Request + ", limit " + c.Limit
	case c.Limit != "":
		return "limit " + c.Limit
	}
	return "request " + c.Request
}

// rbacDenial: a 403 from the authorizer, whose message reads `User "…" cannot patch resource
// "pods/resize" …`; an admission plugin's 403 reads otherwise.
func rbacDenial(e *kubeapi.Error) bool {
	return strings.Contains(e.Message, "cannot ") && strings.Contains(e.Message, "resource ")
}
