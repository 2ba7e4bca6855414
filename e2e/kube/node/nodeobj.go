package node

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
)

// NodeIP is the node's InternalIP (status.hostIP of its pods): the pod network's gateway address,
// not loopback, as a node's address is not.
const NodeIP = "10.244.0.1"

// leaseDuration and the renew interval are the kubelet's defaults (40 s, renewed every 10 s); the
// node lifecycle controller marks a node whose Lease goes stale NotReady.
const (
	leaseDuration = 40
	renewInterval = 10 * time.Second
)

func (a *Agent) nodeStatus() corev1.NodeStatus {
	now := metav1.Now()
	capacity := corev1.ResourceList{
		corev1.ResourceCPU: a.o.CPU, corev1.ResourceMemory: a.o.Memory,
		corev1.ResourcePods: resource.MustParse("110"),
	}
	cond := func(t corev1.NodeConditionType, s corev1.ConditionStatus, reason string) corev1.NodeCondition {
		return corev1.NodeCondition{Type: t, Status: s, Reason: reason, LastHeartbeatTime: now, LastTransitionTime: now}
	}
	return corev1.NodeStatus{
		Capacity: capacity, Allocatable: capacity,
		Conditions: []corev1.NodeCondition{
			cond(corev1.NodeMemoryPressure, corev1.ConditionFalse, "KubeletHasSufficientMemory"),
			cond(corev1.NodeDiskPressure, corev1.ConditionFalse, "KubeletHasNoDiskPressure"),
			cond(corev1.NodePIDPressure, corev1.ConditionFalse, "KubeletHasSufficientPID"),
			cond(corev1.NodeReady, corev1.ConditionTrue, "KubeletReady"),
		},
		Addresses: []corev1.NodeAddress{
			{Type: corev1.NodeInternalIP, Address: NodeIP}, {Type: corev1.NodeHostName, Address: a.o.Name},
		},
		NodeInfo: corev1.NodeSystemInfo{
			KubeletVersion: a.o.Version, OperatingSystem: "linux", Architecture: "amd64",
			ContainerRuntimeVersion: "testbed://launchers",
		},
	}
}

// register creates the Node (or takes over one of the same name) with its status.
func (a *Agent) register(ctx context.Context) error {
	n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: a.o.Name, Labels: map[string]string{
		"kubernetes.io/hostname": a.o.Name, "kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64",
	}}}
	nodes := a.o.Client.CoreV1().Nodes()
	created, err := nodes.Create(ctx, n, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		created, err = nodes.Get(ctx, a.o.Name, metav1.GetOptions{})
	}
	if err != nil {
		return fmt.Errorf("register node %s: %w", a.o.Name, err)
	}
	if err := a.patchNodeStatus(ctx); err != nil {
		return err
	}
	a.o.Log.Info("node registered", "node", created.Name)
	return nil
}

func (a *Agent) patchNodeStatus(ctx context.Context) error {
	b, err := json.Marshal(map[string]any{"status": a.nodeStatus()})
	if err != nil {
		return err
	}
	if _, err := a.o.Client.CoreV1().Nodes().Patch(ctx, a.o.Name, types.MergePatchType, b, metav1.PatchOptions{}, "status"); err != nil {
		return fmt.Errorf("node %s status: %w", a.o.Name, err)
	}
	return nil
}

// heartbeat renews the node's Lease and status every 10 s, as the kubelet does.
func (a *Agent) heartbeat(ctx context.Context) error {
	leases := a.o.Client.CoordinationV1().Leases(corev1.NamespaceNodeLease)
	t := time.NewTicker(renewInterval)
	defer t.Stop()
	for {
		now := metav1.NewMicroTime(time.Now())
		l, err := leases.Get(ctx, a.o.Name, metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err):
			_, err = leases.Create(ctx, &coordinationv1.Lease{
				ObjectMeta: metav1.ObjectMeta{Name: a.o.Name, Namespace: corev1.NamespaceNodeLease},
				Spec: coordinationv1.LeaseSpec{
					HolderIdentity: ptr.To(a.o.Name), LeaseDurationSeconds: ptr.To[int32](leaseDuration), RenewTime: &now,
				},
			}, metav1.CreateOptions{})
		case err == nil:
			l.Spec.RenewTime = &now
			_, err = leases.Update(ctx, l, metav1.UpdateOptions{})
		}
		if err != nil && ctx.Err() == nil {
			a.o.Log.Warn("node lease", "node", a.o.Name, "err", err)
		}
		if err := a.patchNodeStatus(ctx); err != nil && ctx.Err() == nil {
			a.o.Log.Warn("node status", "err", err)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}
