package kubeapi

import "time"

// Pod is the part of a v1 Pod the sidecar reads: its containers' resources as asked (spec), as
// the kubelet allocated and applied them (status), and the conditions that say a resize waits.
type Pod struct {
	Metadata struct {
		Name              string    `json:"name"`
		Namespace         string    `json:"namespace"`
		UID               string    `json:"uid"`
		CreationTimestamp time.Time `json:"creationTimestamp"`
	} `json:"metadata"`
	Spec struct {
		Containers []Container `json:"containers"`
	} `json:"spec"`
	Status PodStatus `json:"status"`
}

// Container is a spec container: its name and resources.
type Container struct {
	Name      string    `json:"name"`
	Resources Resources `json:"resources"`
}

// Resources are requests and limits by resource name ("cpu", "memory"), as quantities.
type Resources struct {
	Requests map[string]string `json:"requests,omitempty"`
	Limits   map[string]string `json:"limits,omitempty"`
}

// PodStatus is the kubelet's report.
type PodStatus struct {
	Phase             string            `json:"phase"`
	StartTime         *time.Time        `json:"startTime,omitempty"`
	QOSClass          string            `json:"qosClass"`
	Conditions        []Condition       `json:"conditions"`
	ContainerStatuses []ContainerStatus `json:"containerStatuses"`
}

// Condition is a pod condition (PodResizePending with reason Deferred or Infeasible,
// PodResizeInProgress).
type Condition struct {
	Type    string `json:"type"`
	Status  string `json:"status"`
	Reason  string `json:"reason,omitempty"`
	Message string `json:"message,omitempty"`
}

// ContainerStatus holds what the kubelet applied: Resources as configured on the running
// container (nil from a kubelet without in-place resize, or before the container runs).
type ContainerStatus struct {
	Name         string     `json:"name"`
	RestartCount int        `json:"restartCount"`
	Resources    *Resources `json:"resources,omitempty"`
}

// The pod conditions of an in-place resize (KEP-1287, Kubernetes ≥ 1.33).
const (
	ConditionResizePending    = "PodResizePending"
	ConditionResizeInProgress = "PodResizeInProgress"
	ReasonDeferred            = "Deferred"
	ReasonInfeasible          = "Infeasible"
)

// Container returns the named spec container, or false.
func (p Pod) Container(name string) (Container, bool) {
	for _, c := range p.Spec.Containers {
		if c.Name == name {
			return c, true
		}
	}
	return Container{}, false
}

// ContainerStatus returns the named container's status, or false.
func (p Pod) ContainerStatus(name string) (ContainerStatus, bool) {
	for _, c := range p.Status.ContainerStatuses {
		if c.Name == name {
			return c, true
		}
	}
	return ContainerStatus{}, false
}

// Condition returns the condition of the type when its status is True, or false.
func (p Pod) Condition(kind string) (Condition, bool) {
	for _, c := range p.Status.Conditions {
		if c.Type == kind && c.Status == "True" {
			return c, true
		}
	}
	return Condition{}, false
}

// CPU is the CPU request and limit ("" when unset).
func (r Resources) CPU() (request, limit string) {
	return r.Requests["cpu"], r.Limits["cpu"]
}
