package cpuboost

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/internal/report"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/backoff"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/kubeapi"
)

// PodAPI is the Kubernetes API of the pod the sidecar runs in (*kubeapi.Client).
type PodAPI interface {
	GetPod(ctx context.Context) (kubeapi.Pod, error)
	ResizeCPU(ctx context.Context, container string, cpu kubeapi.CPU) (kubeapi.Pod, error)
}

// Gate is the sidecar's gate as the boost reads it (*gatehttp.Gate): open once the warmup ended.
type Gate interface{ IsOpen() bool }

// Reporter publishes each status: /status, the state gauge, a log line per transition
// (report.CPUBoostReport).
type Reporter interface{ Set(report.CPUBoostStatus) }

// States, as pinot_warmup_broker_cpu_boost{state} and /status broker_cpu_boost.state name them.
const (
	StateOff        = report.CPUBoostOff
	StateBoosted    = report.CPUBoostBoosted
	StateGivingBack = report.CPUBoostGivingBack
	StateGivenBack  = report.CPUBoostGivenBack
	StateFailed     = report.CPUBoostFailed
)

// rbacHint is what a refused call tells the operator to grant.
const rbacHint = "the sidecar's ServiceAccount needs get on pods and patch on pods/resize for this pod (the Role the chart renders with brokerCpuBoost)"

// Runner gives the boost back once. Run it in its own goroutine: it returns when the CPU is
// given back, when it gave up (failed), or when ctx ends; it never returns an error.
type Runner struct {
	Settings Settings
	Pods     PodAPI
	// Compile reads the broker JVM's compile time; nil: no JIT signal (the settle time applies).
	Compile CompileTimeSource
	Gate    Gate
	Report  Reporter
	Now     func() time.Time
	// Sleep waits within ctx (false when ctx ended first); nil: backoff.Sleep.
	Sleep func(ctx context.Context, d time.Duration) bool

	s       Settings
	st      report.CPUBoostStatus
	podRead bool
}

// Run boosts until the evidence says give back, then gives back.
func (r *Runner) Run(ctx context.Context) error {
	defer func() {
		// The boost is beside the warmup: a bug here must not take the sidecar down.
		if p := recover(); p != nil {
			r.fail(fmt.Sprintf("internal error: %v", p))
		}
	}()
	if r.Now == nil {
		r.Now = time.Now
	}
	if r.Sleep == nil {
		r.Sleep = backoff.Sleep
	}
	r.s = r.Settings.withDefaults()
	s := r.s
	start := r.Now()
	r.st = report.CPUBoostStatus{
		State: StateBoosted, Since: start, Container: s.Container, Target: cpuStatus(s.Target),
		Reason:   "the pod started with the broker container's CPU boosted; it is given back on evidence (a quiet JIT compiler once the gate is open) or at the maximum boost time",
		MaxUntil: start.Add(s.MaxDuration),
	}
	r.Report.Set(r.st)
	ev := evidence{podStart: start}
	jit := newJITReader(r.Compile, s.JIT, s.NoJITNote)
	nextGet, getWait := start, s.Retry
	for {
		if !r.podRead && !r.Now().Before(nextGet) {
			switch r.learnPod(ctx, &ev) {
			case podDone:
				return nil
			case podRetry:
				nextGet = r.Now().Add(getWait.Next())
			}
		}
		ev.jit = jit.read(ctx, r.Now)
		ev.now = r.Now()
		if !r.Gate.IsOpen() {
			ev.openSince = time.Time{}
		} else if ev.openSince.IsZero() {
			ev.openSince = ev.now
		}
		if why := s.due(ev); why != "" {
			r.giveBack(ctx, why)
			return nil
		}
		r.st.WaitingFor = s.waiting(ev)
		r.Report.Set(r.st)
		if !r.Sleep(ctx, s.Tick) {
			return nil
		}
	}
}

// podStep is what reading the pod at the start led to.
type podStep int

const (
	podOK    podStep = iota // read: boosted as expected
	podRetry                // not read (a transient error): try again later
	podDone                 // a final state was reached (failed, or already given back)
)

// learnPod reads the pod once at the start: when it started (the maximum boost time counts from
// there, across sidecar restarts), and whether its broker container can be given back to the
// target at all. A pod already at the target (the sidecar restarted after a give-back) is
// confirmed, not resized again.
func (r *Runner) learnPod(ctx context.Context, ev *evidence) podStep {
	pod, err := r.getPod(ctx)
	if err != nil {
		var ae *kubeapi.Error
		switch {
		case ctx.Err() != nil:
			return podRetry
		case errors.As(err, &ae) && ae.Forbidden() && rbacDenial(ae):
			r.fail("no permission to read the pod: " + rbacHint + ": " + err.Error())
			return podDone
		case errors.As(err, &ae) && ae.Forbidden():
			r.fail("the API server forbade reading the pod: " + err.Error())
			return podDone
		case errors.As(err, &ae) && ae.NotFound():
			r.fail("the pod was not found: WARMUP_POD_NAME and WARMUP_POD_NAMESPACE must name it (the downward API's metadata.name and metadata.namespace): " + err.Error())
			return podDone
		}
		r.st.LastError = err.Error()
		r.Report.Set(r.st)
		return podRetry
	}
	r.podRead = true
	r.st.LastError = ""
	ev.podStart = pod.Metadata.CreationTimestamp
	if pod.Status.StartTime != nil {
		ev.podStart = *pod.Status.StartTime
	}
	r.st.PodStartedAt = ev.podStart
	r.st.MaxUntil = ev.podStart.Add(r.s.MaxDuration)
	c, ok := pod.Container(r.s.Container)
	if !ok {
		r.fail(fmt.Sprintf("the pod has no container named %q (WARMUP_CPU_BOOST_CONTAINER)", r.s.Container))
		return podDone
	}
	req, lim := c.Resources.CPU()
	r.st.Spec = &report.CPUBoostCPU{Request: req, Limit: lim}
	if why := r.cannotGiveBack(req, lim); why != "" {
		r.fail(why)
		return podDone
	}
	if r.atTarget(req, lim) {
		r.st.GiveBackBecause = "the broker container's CPU was already the target when the sidecar started (a sidecar restarted after the give-back, or a pod created without the boost)"
		r.transition(StateGivingBack, "confirming that the kubelet runs the broker container at the target CPU")
		r.confirm(ctx, pod)
		return podDone
	}
	r.Report.Set(r.st)
	return podOK
}

// cannotGiveBack says why the broker container's CPU (its spec) cannot be resized to the
// target: a resize cannot add a request or limit the container does not have, and a target
// above the spec would be a boost, not a give-back.
func (r *Runner) cannotGiveBack(req, lim string) string {
	t := r.s.Target
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
func (r *Runner) atTarget(req, lim string) bool {
	t := r.s.Target
	return sameCPU(req, t.Request) && sameCPU(lim, t.Limit)
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

func (r *Runner) getPod(ctx context.Context) (kubeapi.Pod, error) {
	cctx, cancel := context.WithTimeout(ctx, r.s.CallTimeout)
	defer cancel()
	return r.Pods.GetPod(cctx)
}

// transition moves to state with its reason, now.
func (r *Runner) transition(state, reason string) {
	r.st.State, r.st.Reason, r.st.Since = state, reason, r.Now()
	r.st.WaitingFor = ""
	r.Report.Set(r.st)
}

// fail is the final state when the CPU cannot be given back: the pod stays boosted.
func (r *Runner) fail(why string) {
	r.transition(StateFailed, why+"; the broker container keeps its boosted CPU")
}

func cpuStatus(c kubeapi.CPU) report.CPUBoostCPU {
	return report.CPUBoostCPU{Request: c.Request, Limit: c.Limit}
}
