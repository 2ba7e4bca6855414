package cpuboost

import (
	"context"
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

// Reporter publishes each status: /status, the state gauge, a log line per change of state or
// reason (report.CPUBoostReport).
type Reporter interface{ Set(report.CPUBoostStatus) }

// States, as pinot_warmup_broker_cpu_boost{state} and /status broker_cpu_boost.state name them.
const (
	StateOff        = report.CPUBoostOff
	StateBoosted    = report.CPUBoostBoosted
	StateGivingBack = report.CPUBoostGivingBack
	StateGivenBack  = report.CPUBoostGivenBack
	StateFailed     = report.CPUBoostFailed
)

const boostedReason = "the pod started with the broker container's CPU boosted; it is given back on evidence (a quiet JIT compiler once the gate is open) or at the maximum boost time"

// Runner gives the boost back. Run it in its own goroutine: it returns once the kubelet runs
// the broker container at the target, or when ctx ends, never before and never with an error.
// A failure (a refusal, an API server that does not answer, an Infeasible resize, a panic) is
// the state failed with its reason, and the give-back goes on at the slow pace
// (Settings.SlowRetry): a Role fixed by a later upgrade, an API server back after an outage, a
// kubelet that applies the resize later, each ends given back. So does a pod the target cannot
// fit (no such container or CPU field, a target above the spec): a configuration only a new
// pod spec fixes, so its pod is re-read slowly, never resized, rather than given up on.
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

	s   Settings
	st  report.CPUBoostStatus
	ev  evidence
	jit *jitReader
	// last is the pod as last read (nil: never read); boosted, that its spec was above the
	// target then (a resize gives it back).
	last    *kubeapi.Pod
	boosted bool
}

// Run boosts until the evidence says give back, then gives back.
func (r *Runner) Run(ctx context.Context) error {
	if r.Now == nil {
		r.Now = time.Now
	}
	if r.Sleep == nil {
		r.Sleep = backoff.Sleep
	}
	r.s = r.Settings.withDefaults()
	start := r.Now()
	r.st = report.CPUBoostStatus{
		State: StateBoosted, Since: start, Container: r.s.Container, Target: cpuStatus(r.s.Target),
		Reason: boostedReason, MaxUntil: start.Add(r.s.MaxDuration),
	}
	r.Report.Set(r.st)
	// Until the pod is read, the maximum boost time counts from the sidecar's start.
	r.ev = evidence{podStart: start}
	r.jit = newJITReader(r.Compile, r.s.JIT, r.s.NoJITNote)
	for {
		p := r.guarded(ctx)
		if p == nil {
			return nil
		}
		// A bug here must neither take the sidecar down nor end the give-back: it starts over,
		// slowly, from what it knew.
		r.fail(fmt.Sprintf("internal error: %v", p), fmt.Sprintf("the give-back starts over every %s", r.s.SlowRetry))
		if !r.Sleep(ctx, r.s.SlowRetry) {
			return nil
		}
	}
}

// guarded holds the boost, then gives it back; it returns what panicked, or nil.
func (r *Runner) guarded(ctx context.Context) (panicked any) {
	defer func() { panicked = recover() }()
	if r.st.GiveBackBecause == "" && !r.hold(ctx) {
		return nil
	}
	r.giveBack(ctx)
	return nil
}

// call reads the pod, or (resize) sends the resize, whose answer is the pod too.
func (r *Runner) call(ctx context.Context, resize bool) (kubeapi.Pod, error) {
	cctx, cancel := context.WithTimeout(ctx, r.s.CallTimeout)
	defer cancel()
	if resize {
		r.st.Attempts++
		return r.Pods.ResizeCPU(cctx, r.s.Container, r.s.Target)
	}
	return r.Pods.GetPod(cctx)
}

// noteRead keeps a pod read: its start (the maximum boost time counts from there, across
// sidecar restarts) and its spec.
func (r *Runner) noteRead(pod kubeapi.Pod, kind specKind, spec *report.CPUBoostCPU) {
	r.last, r.boosted = &pod, kind == specAbove
	r.st.LastError = ""
	r.st.Spec = spec
	start := pod.Metadata.CreationTimestamp
	if pod.Status.StartTime != nil {
		start = *pod.Status.StartTime
	}
	if !start.IsZero() {
		r.ev.podStart = start
		r.st.PodStartedAt = start
		r.st.MaxUntil = start.Add(r.s.MaxDuration)
	}
}

// set publishes state with its reason; since moves when the state changes.
func (r *Runner) set(state, reason string) {
	if state != r.st.State {
		r.st.Since = r.Now()
	}
	r.st.State, r.st.Reason = state, reason
	r.st.WaitingFor = ""
	r.Report.Set(r.st)
}

// fail reports that the CPU is not given back (why), and what is tried next. The reason stays
// the same across identical failures, so that the reporter logs the first only: counts go in
// attempts, errors in last_error.
func (r *Runner) fail(why, next string) {
	r.set(StateFailed, why+"; the broker container keeps its boosted CPU; "+next)
}

func (r *Runner) readAgain() string {
	return fmt.Sprintf("the pod is read again every %s", r.s.SlowRetry)
}

func (r *Runner) resizeAgain() string {
	return fmt.Sprintf("the resize is sent again every %s", r.s.SlowRetry)
}

func cpuStatus(c kubeapi.CPU) report.CPUBoostCPU {
	return report.CPUBoostCPU{Request: c.Request, Limit: c.Limit}
}
