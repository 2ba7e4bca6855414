package node

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

func metaTime(t time.Time) metav1.Time { return metav1.NewTime(t) }

func (a *Agent) minorVersion() string {
	v := strings.TrimPrefix(a.o.Version, "v")
	parts := strings.SplitN(v, ".", 3)
	if len(parts) < 2 {
		return v
	}
	return parts[0] + "." + parts[1]
}

// ownConditions are the pod conditions the kubelet writes; others (PodScheduled, DisruptionTarget,
// readiness gates) are kept as the API server has them.
var ownConditions = map[corev1.PodConditionType]bool{
	corev1.PodReadyToStartContainers: true, corev1.PodInitialized: true, corev1.ContainersReady: true,
	corev1.PodReady: true, corev1.PodResizePending: true, corev1.PodResizeInProgress: true,
}

// status is the pod's status as the kubelet's status manager writes it (under mu).
func (w *podWorker) status() corev1.PodStatus {
	pod := w.pod
	s := corev1.PodStatus{
		HostIP: NodeIP, HostIPs: []corev1.HostIP{{IP: NodeIP}}, QOSClass: pod.Status.QOSClass,
		ObservedGeneration: pod.Generation,
	}
	if !w.setupAt.IsZero() {
		t := metaTime(w.setupAt)
		s.StartTime = &t
		s.PodIP, s.PodIPs = w.net.IP, []corev1.PodIP{{IP: w.net.IP}}
	}
	initDone, allReady, anyRunning, mainStarted := true, true, false, false
	allExited, anyFailed := true, false
	for _, c := range w.ctrs {
		cs := w.containerStatus(c)
		if c.kind == kindMain {
			s.ContainerStatuses = append(s.ContainerStatuses, cs)
			if c.id != "" {
				mainStarted = true
			}
		} else {
			s.InitContainerStatuses = append(s.InitContainerStatuses, cs)
		}
		switch c.kind {
		case kindInit:
			if !c.completed {
				initDone = false
			}
		case kindSidecar:
			if !c.started {
				initDone = false
			}
		}
		if c.kind != kindInit && !c.ready {
			allReady = false
		}
		if c.running() {
			anyRunning = true
			allExited = false
		}
		if c.kind == kindMain && c.term == nil {
			allExited = false
		}
		if c.term != nil && c.term.ExitCode != 0 {
			anyFailed = true
		}
	}
	switch {
	case w.finished && allExited && anyFailed:
		s.Phase = corev1.PodFailed
	case w.finished && allExited:
		s.Phase = corev1.PodSucceeded
	case mainStarted && (anyRunning || !w.terminating):
		s.Phase = corev1.PodRunning
	default:
		s.Phase = corev1.PodPending
	}
	if w.finished {
		allReady = false
	}
	b := func(v bool) corev1.ConditionStatus {
		if v {
			return corev1.ConditionTrue
		}
		return corev1.ConditionFalse
	}
	ready := allReady && initDone && mainStarted
	for _, g := range pod.Spec.ReadinessGates {
		gate := false
		for _, c := range pod.Status.Conditions {
			if c.Type == g.ConditionType && c.Status == corev1.ConditionTrue {
				gate = true
			}
		}
		ready = ready && gate
	}
	w.setCond(corev1.PodReadyToStartContainers, b(!w.setupAt.IsZero() && !w.finished), "")
	w.setCond(corev1.PodInitialized, b(initDone), "")
	w.setCond(corev1.ContainersReady, b(allReady && initDone && mainStarted), "")
	w.setCond(corev1.PodReady, b(ready), "")
	for _, t := range []corev1.PodConditionType{corev1.PodReadyToStartContainers, corev1.PodInitialized, corev1.ContainersReady, corev1.PodReady} {
		c := w.conds[t]
		c.ObservedGeneration = pod.Generation
		s.Conditions = append(s.Conditions, c)
	}
	if w.resize != nil {
		s.Conditions = append(s.Conditions, *w.resize)
	}
	for _, c := range pod.Status.Conditions {
		if !ownConditions[c.Type] {
			s.Conditions = append(s.Conditions, c)
		}
	}
	return s
}

// setCond keeps a condition's transition time until its status changes.
func (w *podWorker) setCond(t corev1.PodConditionType, st corev1.ConditionStatus, reason string) {
	c, ok := w.conds[t]
	if ok && c.Status == st {
		return
	}
	w.conds[t] = corev1.PodCondition{Type: t, Status: st, Reason: reason, LastTransitionTime: metav1.Now()}
}

func (w *podWorker) containerStatus(c *container) corev1.ContainerStatus {
	r := w.allocated[c.spec.Name]
	cs := corev1.ContainerStatus{
		Name: c.spec.Name, Image: c.spec.Image, ImageID: "testbed://" + c.spec.Image, ContainerID: c.id,
		Ready: c.ready, RestartCount: int32(c.restarts),
		AllocatedResources: r.Requests, Resources: &corev1.ResourceRequirements{Requests: r.Requests, Limits: r.Limits},
	}
	started := c.started && c.running()
	cs.Started = &started
	switch {
	case c.running():
		cs.State.Running = &corev1.ContainerStateRunning{StartedAt: metaTime(c.startedAt)}
	case c.term != nil && (c.waiting == "" || c.completed || w.terminating || w.finished):
		cs.State.Terminated = c.term
	default:
		reason := c.waiting
		if reason == "" {
			reason = "ContainerCreating"
		}
		cs.State.Waiting = &corev1.ContainerStateWaiting{Reason: reason, Message: c.message}
	}
	if c.lastTerm != nil {
		cs.LastTerminationState.Terminated = c.lastTerm
	} else if c.term != nil && cs.State.Terminated == nil {
		cs.LastTerminationState.Terminated = c.term
	}
	if w.setupErr != "" && c.id == "" {
		cs.State = corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "ContainerCreating", Message: w.setupErr}}
	}
	return cs
}

// syncStatus patches the pod's status when it changed: a JSON merge patch of the whole status
// with the pod's UID as a precondition (a replacement of the same name is never written to).
func (w *podWorker) syncStatus(ctx context.Context) {
	w.mu.Lock()
	s := w.status()
	w.mu.Unlock()
	body, err := json.Marshal(map[string]any{"metadata": map[string]any{"uid": w.uid}, "status": s})
	if err != nil {
		return
	}
	// Compare without the times that change on every call.
	key, _ := json.Marshal(stripTimes(s))
	if string(key) == w.lastStatus {
		return
	}
	_, err = w.a.o.Client.CoreV1().Pods(w.pod.Namespace).Patch(ctx, w.pod.Name, types.MergePatchType, body, metav1.PatchOptions{}, "status")
	if err != nil {
		if ctx.Err() == nil {
			w.log()("status patch", "err", err)
		}
		return
	}
	w.lastStatus = string(key)
}

func stripTimes(s corev1.PodStatus) corev1.PodStatus {
	s = *s.DeepCopy()
	for i := range s.Conditions {
		s.Conditions[i].LastProbeTime = metav1.Time{}
	}
	return s
}
