package node

import (
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// containerCPU is a container's cgroup settings from its resources (the kubelet's arithmetic).
func containerCPU(r corev1.ResourceRequirements) CPU {
	return CPU{Shares: CPUShares(r.Requests.Cpu().MilliValue()), QuotaUs: CPUQuota(r.Limits.Cpu().MilliValue())}
}

// podRequestMilli is the pod's CPU request as allocated (see podCPUOf).
func (w *podWorker) podRequestMilli() int64 {
	_, req := w.podCPUOf(w.allocated)
	return req
}

// podCPU is the pod cgroup's settings as allocated (see podCPUOf).
func (w *podWorker) podCPU() CPU {
	cpu, _ := w.podCPUOf(w.allocated)
	return cpu
}

// podCPUOf is the pod cgroup's settings for the containers' resources res, and the pod's CPU
// request, as the kubelet computes them (cm.ResourceConfigForPod over component-helpers'
// PodRequests and PodLimits, KEP-753): main containers and sidecars add up; a regular init
// container counts with the sidecars started before it, and the pod takes the larger of the two.
// Shares are for the request; a quota for the limit only when every container declared a CPU
// limit (cpuLimitsDeclared, which for an init container looks at what it counts with: itself and
// the sidecars before it), else the pod is not limited, as the kubelet leaves a Burstable pod's
// quota unset.
func (w *podWorker) podCPUOf(res map[string]corev1.ResourceRequirements) (CPU, int64) {
	var req, limit, sideReq, sideLimit, initReq, initLimit int64
	declared := true
	for _, c := range w.ctrs {
		r := res[c.spec.Name]
		rq, lm := r.Requests.Cpu().MilliValue(), r.Limits.Cpu().MilliValue()
		switch c.kind {
		case kindMain:
			req, limit = req+rq, limit+lm
			declared = declared && lm > 0
		case kindSidecar:
			req, limit = req+rq, limit+lm
			sideReq, sideLimit = sideReq+rq, sideLimit+lm
			declared = declared && sideLimit > 0
			initReq, initLimit = max(initReq, sideReq), max(initLimit, sideLimit)
		case kindInit:
			declared = declared && lm+sideLimit > 0
			initReq, initLimit = max(initReq, rq+sideReq), max(initLimit, lm+sideLimit)
		}
	}
	req, limit = max(req, initReq), max(limit, initLimit)
	if !declared {
		limit = 0
	}
	return CPU{Shares: CPUShares(req), QuotaUs: CPUQuota(limit)}, req
}

func (a *Agent) admit(uid types.UID, milli int64) {
	a.mu.Lock()
	a.allocated[uid] = milli
	a.mu.Unlock()
}

func (a *Agent) release(uid types.UID) {
	a.mu.Lock()
	delete(a.allocated, uid)
	a.mu.Unlock()
}

// othersMilli is the CPU every other pod on the node has been allocated.
func (a *Agent) othersMilli(uid types.UID) int64 {
	a.mu.Lock()
	defer a.mu.Unlock()
	var sum int64
	for u, m := range a.allocated {
		if u != uid {
			sum += m
		}
	}
	return sum
}

// resizeIfAsked applies an in-place resize (under mu): when the spec's resources of a container
// differ from what is allocated, the kubelet admits the new requests against the node (a request
// above the node's capacity is Infeasible, above what the other pods leave free is Deferred and
// retried), then actuates: cgroups are raised pod first and lowered container first (the kernel
// refuses a child quota above its parent's), and a container whose resizePolicy for the resource
// says RestartContainer is restarted. Status reports the allocated and actual resources; a
// waiting resize is the PodResizePending condition.
func (w *podWorker) resizeIfAsked(now time.Time) {
	desired := map[string]corev1.ResourceRequirements{}
	changed := false
	for _, c := range w.ctrs {
		if c.kind == kindInit {
			continue
		}
		spec := specContainer(w.pod, c.spec.Name)
		if spec == nil {
			continue
		}
		desired[c.spec.Name] = spec.Resources
		if !equality.Semantic.DeepEqual(spec.Resources, w.allocated[c.spec.Name]) {
			changed = true
		}
	}
	if !changed {
		w.resize = nil
		return
	}
	all := map[string]corev1.ResourceRequirements{}
	for k, v := range w.allocated {
		all[k] = v
	}
	for k, v := range desired {
		all[k] = v
	}
	_, want := w.podCPUOf(all)
	capacity := w.a.o.CPU.MilliValue()
	pending := func(reason, msg string) {
		if w.resize == nil || w.resize.Reason != reason {
			w.log()("resize pending", "reason", reason, "msg", msg)
		}
		w.resize = &corev1.PodCondition{
			Type: corev1.PodResizePending, Status: corev1.ConditionTrue, Reason: reason, Message: msg,
			LastTransitionTime: metav1.NewTime(now), ObservedGeneration: w.pod.Generation,
		}
	}
	switch {
	case want > capacity:
		pending(corev1.PodReasonInfeasible, fmt.Sprintf("Node didn't have enough capacity: cpu, requested: %d, capacity: %d", want, capacity))
		return
	case want+w.a.othersMilli(w.uid) > capacity:
		pending(corev1.PodReasonDeferred, fmt.Sprintf("Node didn't have enough resource: cpu, requested: %d, used: %d, capacity: %d",
			want, w.a.othersMilli(w.uid), capacity))
		return
	}
	old := map[string]corev1.ResourceRequirements{}
	for k, v := range w.allocated {
		old[k] = v
	}
	oldPod := w.podCPU()
	for k, v := range desired {
		w.allocated[k] = *v.DeepCopy()
	}
	newPod := w.podCPU()
	rel := PodCgroup(w.uid)
	apply := func() error {
		raise := newPod.QuotaUs == -1 || (oldPod.QuotaUs != -1 && newPod.QuotaUs >= oldPod.QuotaUs)
		if raise {
			if err := w.a.cg.set(rel, newPod); err != nil {
				return err
			}
		}
		for _, c := range w.ctrs {
			if c.kind == kindInit || c.id == "" {
				continue
			}
			if err := w.a.cg.set(rel+"/"+c.spec.Name, containerCPU(w.allocated[c.spec.Name])); err != nil {
				return err
			}
		}
		if !raise {
			return w.a.cg.set(rel, newPod)
		}
		return nil
	}
	if err := apply(); err != nil {
		w.allocated = old
		pending(corev1.PodReasonDeferred, "applying the resize to the pod's cgroup: "+err.Error())
		return
	}
	w.a.admit(w.uid, want)
	w.resize = nil
	w.log()("resized", "cpu_request_milli", want, "pod_quota_us", newPod.QuotaUs)
	for _, c := range w.ctrs {
		if c.kind == kindInit || c.id == "" || !c.running() {
			continue
		}
		if !equality.Semantic.DeepEqual(old[c.spec.Name], w.allocated[c.spec.Name]) && restartOnResize(c.spec) {
			w.killContainer(c, w.graceSeconds(), nil)
		}
	}
}

// restartOnResize is a container whose CPU resizePolicy asks for a restart.
func restartOnResize(c *corev1.Container) bool {
	for _, p := range c.ResizePolicy {
		if p.ResourceName == corev1.ResourceCPU {
			return p.RestartPolicy == corev1.RestartContainer
		}
	}
	return false
}

// specContainer is the named container of the newest pod object (a resize changes it).
func specContainer(pod *corev1.Pod, name string) *corev1.Container {
	for i := range pod.Spec.Containers {
		if pod.Spec.Containers[i].Name == name {
			return &pod.Spec.Containers[i]
		}
	}
	for i := range pod.Spec.InitContainers {
		if pod.Spec.InitContainers[i].Name == name {
			return &pod.Spec.InitContainers[i]
		}
	}
	return nil
}
