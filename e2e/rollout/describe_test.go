package rollout

import (
	"context"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/warmup-sidecar/warmup-sidecar/e2e/kube/testbed"
)

// brokerSet is the broker StatefulSet with a sidecar whose CPU request is req ("": none).
func brokerSet(req string) *appsv1.StatefulSet {
	side := corev1.Container{Name: sidecarCtr, ReadinessProbe: &corev1.Probe{PeriodSeconds: 1}}
	if req != "" {
		side.Resources.Requests = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(req)}
	}
	return &appsv1.StatefulSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: brokerSTS},
		Spec: appsv1.StatefulSetSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
			InitContainers: []corev1.Container{side},
			Containers:     []corev1.Container{{Name: brokerCtr}},
		}}},
	}
}

// The platform says the sidecar's CPU on the study's brokers: an arm on brokers of its own CPU
// (on_boost_300m, whose sidecar's request follows its 300m broker) does not overwrite it, whenever
// it runs; nor does a later arm.
func TestDescribeKeepsTheSidecarCPUOfTheStudysBrokers(t *testing.T) {
	ctx := context.Background()
	for _, order := range [][]string{{ArmOnDefault, ArmOnBoost300m}, {ArmOnBoost300m, ArmOnDefault}} {
		cs := fake.NewClientset(brokerSet(""))
		b := &bed{Bed: &testbed.Bed{Admin: cs}}
		p := &Platform{}
		for _, arm := range order {
			req := ""
			if arm == ArmOnBoost300m {
				req = "50m"
			}
			if _, err := cs.AppsV1().StatefulSets(namespace).Update(ctx, brokerSet(req), metav1.UpdateOptions{}); err != nil {
				t.Fatal(err)
			}
			spec, err := specOf(arm)
			if err != nil {
				t.Fatal(err)
			}
			if _, side, err := b.describe(ctx, p, spec.ownCPU == ""); err != nil || side == nil {
				t.Fatalf("%v: describe: probe %v, %v", order, side, err)
			}
		}
		if p.Sidecar == nil || p.Sidecar.CPURequest != "" {
			t.Errorf("arms %v: the platform's sidecar CPU = %+v, want the study's brokers' sidecar (no request)", order, p.Sidecar)
		}
	}
}
