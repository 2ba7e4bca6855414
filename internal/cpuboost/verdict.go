package cpuboost

import (
	"fmt"

	"github.com/warmup-sidecar/warmup-sidecar/internal/report"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/kubeapi"
)

// specKind is how the broker container's CPU spec stands against the target.
type specKind int

const (
	specAbove    specKind = iota // boosted: a resize gives it back
	specAtTarget                 // resized: the kubelet's report says whether it runs so
	specWrong                    // cannot be given back: a configuration only a new pod spec fixes
)

// specOf reads the broker container's CPU spec and compares it with the target; why says what
// is wrong with a specWrong one.
func (s Settings) specOf(pod kubeapi.Pod) (kind specKind, cpu *report.CPUBoostCPU, why string) {
	c, ok := pod.Container(s.Container)
	if !ok {
		return specWrong, nil, fmt.Sprintf("the pod has no container named %q (WARMUP_CPU_BOOST_CONTAINER)", s.Container)
	}
	req, lim := c.Resources.CPU()
	cpu = &report.CPUBoostCPU{Request: req, Limit: lim}
	switch {
	case s.cannotGiveBack(req, lim) != "":
		return specWrong, cpu, s.cannotGiveBack(req, lim)
	case s.atTarget(req, lim):
		return specAtTarget, cpu, ""
	}
	return specAbove, cpu, ""
}

// kubeletSays judges the kubelet's report on a pod whose spec is at the target: given back,
// still giving back (pending, in progress, not reported), or failed (Infeasible).
func (s Settings) kubeletSays(pod kubeapi.Pod) (state, reason string, applied *report.CPUBoostCPU) {
	if cs, ok := pod.ContainerStatus(s.Container); ok && cs.Resources != nil {
		req, lim := cs.Resources.CPU()
		applied = &report.CPUBoostCPU{Request: req, Limit: lim}
	}
	pending, isPending := pod.Condition(kubeapi.ConditionResizePending)
	switch {
	case isPending && pending.Reason == kubeapi.ReasonInfeasible:
		return StateFailed, "the kubelet refused the resize as Infeasible: " + pending.Message, applied
	case isPending:
		return StateGivingBack, fmt.Sprintf("the kubelet has not applied the resize yet (%s): %s", pending.Reason, pending.Message), applied
	case applied == nil:
		return StateGivingBack, "the API server accepted the resize; waiting for the kubelet to report the container's resources", nil
	case condition(pod, kubeapi.ConditionResizeInProgress):
		return StateGivingBack, "the kubelet is applying the resize", applied
	case !s.atTarget(applied.Request, applied.Limit):
		return StateGivingBack, "the API server accepted the resize; the kubelet still runs the container at its old CPU", applied
	}
	return StateGivenBack, fmt.Sprintf("the kubelet runs the broker container at the target CPU (%s)", describeCPU(s.Target)), applied
}

// cannotGiveBack says why the broker container's CPU (its spec) cannot be resized to the
// target: a resize cannot add a request or limit the container does not have, and a target
// above the spec would be a boost, not a give-back (the sidecar only ever resizes down).
func (s Settings) cannotGiveBack(req, lim string) string {
	t := s.Target
	for _, f := range []struct{ name, spec, target string }{{"request", req, t.Request}, {"limit", lim, t.Limit}} {
		if f.target == "" {
			continue
		}
		if f.spec == "" {
			return fmt.Sprintf("the broker container has no CPU %s to give back to %s (a resize cannot add one): its spec and WARMUP_CPU_BOOST_TARGET_%s disagree", f.name, f.target, upper(f.name))
		}
		spec, err1 := kubeapi.ParseCPU(f.spec)
		target, err2 := kubeapi.ParseCPU(f.target)
		if err1 != nil || err2 != nil {
			return fmt.Sprintf("the broker container's CPU %s %q cannot be compared with the target %q", f.name, f.spec, f.target)
		}
		if spec < target {
			return fmt.Sprintf("the broker container's CPU %s (%s) is below the target (%s): nothing to give back", f.name, f.spec, f.target)
		}
	}
	return ""
}

func upper(s string) string {
	if s == "request" {
		return "REQUEST"
	}
	return "LIMIT"
}

// atTarget: every target field equals the given CPU (compared as quantities: 1 is 1000m).
func (s Settings) atTarget(req, lim string) bool {
	return sameCPU(req, s.Target.Request) && sameCPU(lim, s.Target.Limit)
}

// sameCPU: target unset, or both the same quantity.
func sameCPU(have, target string) bool {
	if target == "" {
		return true
	}
	a, err1 := kubeapi.ParseCPU(have)
	b, err2 := kubeapi.ParseCPU(target)
	return err1 == nil && err2 == nil && a == b
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
