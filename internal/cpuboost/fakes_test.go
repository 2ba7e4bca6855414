package cpuboost

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/internal/report"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/kubeapi"
)

var t0 = time.Date(2026, 12, 4, 10, 0, 0, 0, time.UTC)

// clock is the runner's time: Sleep advances it at once.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Sleep(ctx context.Context, d time.Duration) bool {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
	return ctx.Err() == nil
}

// gate opens at a time and, optionally, closes for a while (a broker restart).
type gate struct {
	c                   *clock
	openAt              time.Time
	closedFrom, closeTo time.Time
}

func (g gate) IsOpen() bool {
	now := g.c.Now()
	if !g.closedFrom.IsZero() && !now.Before(g.closedFrom) && now.Before(g.closeTo) {
		return false
	}
	return !g.openAt.IsZero() && !now.Before(g.openAt)
}

// compile is the broker JVM's compile time as a function of the clock.
type compile struct {
	c  *clock
	at func(now time.Time) (time.Duration, error)
}

func (f compile) CompileTime(context.Context) (time.Duration, error) { return f.at(f.c.Now()) }

// busyUntil compiles 1 s/s until quiet, then stops.
func busyUntil(quiet time.Time) func(time.Time) (time.Duration, error) {
	return func(now time.Time) (time.Duration, error) {
		if now.After(quiet) {
			now = quiet
		}
		return now.Sub(t0), nil
	}
}

// pods is the API server: one pod, scripted errors, and a kubelet that applies a resize at
// the n-th read after it (0: never).
type pods struct {
	mu         sync.Mutex
	c          *clock
	pod        kubeapi.Pod
	getErrs    []error
	resizeErrs []error
	// getErr and resizeErr, when set, answer a call by the clock (an outage, a Role fixed
	// later) before the scripted errors: nil lets the call through.
	getErr, resizeErr func(now time.Time) error
	gets              int
	getAt             []time.Time
	resized           []kubeapi.CPU
	resizedAt         []time.Time
	// kubelet evolves the status at each read after a resize; nil: it never reports.
	kubelet func(p *kubeapi.Pod, readsSinceResize int)
	since   int
	// panics is how many reads panic before they answer.
	panics int
}

func (p *pods) GetPod(context.Context) (kubeapi.Pod, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.panics > 0 {
		p.panics--
		panic("boom")
	}
	p.gets++
	p.getAt = append(p.getAt, p.c.Now())
	if p.getErr != nil {
		if err := p.getErr(p.c.Now()); err != nil {
			return kubeapi.Pod{}, err
		}
	}
	if len(p.getErrs) > 0 {
		err := p.getErrs[0]
		p.getErrs = p.getErrs[1:]
		if err != nil {
			return kubeapi.Pod{}, err
		}
	}
	if len(p.resized) > 0 && p.kubelet != nil {
		p.since++
		p.kubelet(&p.pod, p.since)
	}
	return clonePod(p.pod), nil
}

func (p *pods) ResizeCPU(_ context.Context, container string, cpu kubeapi.CPU) (kubeapi.Pod, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.resized = append(p.resized, cpu)
	p.resizedAt = append(p.resizedAt, p.c.Now())
	if p.resizeErr != nil {
		if err := p.resizeErr(p.c.Now()); err != nil {
			return kubeapi.Pod{}, err
		}
	}
	if len(p.resizeErrs) > 0 {
		err := p.resizeErrs[0]
		p.resizeErrs = p.resizeErrs[1:]
		if err != nil {
			return kubeapi.Pod{}, err
		}
	}
	for i := range p.pod.Spec.Containers {
		c := &p.pod.Spec.Containers[i]
		if c.Name != container {
			continue
		}
		if cpu.Request != "" {
			c.Resources.Requests["cpu"] = cpu.Request
		}
		if cpu.Limit != "" {
			c.Resources.Limits["cpu"] = cpu.Limit
		}
	}
	return clonePod(p.pod), nil
}

func (p *pods) calls() (gets int, resized []kubeapi.CPU, at []time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.gets, append([]kubeapi.CPU(nil), p.resized...), append([]time.Time(nil), p.resizedAt...)
}

func (p *pods) readsAt() []time.Time {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]time.Time(nil), p.getAt...)
}

func clonePod(p kubeapi.Pod) kubeapi.Pod {
	out := p
	out.Spec.Containers = nil
	for _, c := range p.Spec.Containers {
		c.Resources = cloneRes(c.Resources)
		out.Spec.Containers = append(out.Spec.Containers, c)
	}
	out.Status.ContainerStatuses = nil
	for _, cs := range p.Status.ContainerStatuses {
		if cs.Resources != nil {
			r := cloneRes(*cs.Resources)
			cs.Resources = &r
		}
		out.Status.ContainerStatuses = append(out.Status.ContainerStatuses, cs)
	}
	out.Status.Conditions = append([]kubeapi.Condition(nil), p.Status.Conditions...)
	return out
}

func cloneRes(r kubeapi.Resources) kubeapi.Resources {
	out := kubeapi.Resources{Requests: map[string]string{}, Limits: map[string]string{}}
	for k, v := range r.Requests {
		out.Requests[k] = v
	}
	for k, v := range r.Limits {
		out.Limits[k] = v
	}
	return out
}

// boostedPod: the broker at request 2, limit 4 (boosted from 1 and 2), started at start.
func boostedPod(start time.Time) kubeapi.Pod {
	var p kubeapi.Pod
	p.Metadata.Name, p.Metadata.Namespace = "pinot-broker-0", "pinot"
	p.Metadata.CreationTimestamp = start.Add(-time.Second)
	p.Status.StartTime = &start
	p.Spec.Containers = []kubeapi.Container{
		{Name: "broker", Resources: kubeapi.Resources{Requests: map[string]string{"cpu": "2", "memory": "1280Mi"}, Limits: map[string]string{"cpu": "4"}}},
		{Name: "warmup-sidecar", Resources: kubeapi.Resources{Requests: map[string]string{"cpu": "50m"}}},
	}
	applied := kubeapi.Resources{Requests: map[string]string{"cpu": "2"}, Limits: map[string]string{"cpu": "4"}}
	p.Status.ContainerStatuses = []kubeapi.ContainerStatus{{Name: "broker", Resources: &applied}}
	return p
}

// applyAt is a kubelet that applies the spec at the n-th read after the resize.
func applyAt(n int) func(p *kubeapi.Pod, reads int) {
	return func(p *kubeapi.Pod, reads int) {
		if reads < n {
			return
		}
		c, _ := p.Container("broker")
		r := cloneRes(c.Resources)
		p.Status.ContainerStatuses[0].Resources = &r
	}
}

// recorder keeps every status the runner published.
type recorder struct {
	mu  sync.Mutex
	all []report.CPUBoostStatus
}

func (r *recorder) Set(st report.CPUBoostStatus) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.all = append(r.all, st)
}

func (r *recorder) last() report.CPUBoostStatus {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.all[len(r.all)-1]
}

// changes counts the statuses the reporter logs: a change of state or reason.
func (r *recorder) changes() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for i, s := range r.all {
		if i == 0 || s.State != r.all[i-1].State || s.Reason != r.all[i-1].Reason {
			n++
		}
	}
	return n
}

// find is the first status published in state whose reason holds want.
func (r *recorder) find(state, want string) (report.CPUBoostStatus, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, s := range r.all {
		if s.State == state && strings.Contains(s.Reason, want) {
			return s, true
		}
	}
	return report.CPUBoostStatus{}, false
}

// states is the sequence of distinct states published.
func (r *recorder) states() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, s := range r.all {
		if len(out) == 0 || out[len(out)-1] != s.State {
			out = append(out, s.State)
		}
	}
	return out
}
