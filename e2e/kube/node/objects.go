package node

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// configMap is the ConfigMap a pod's env or volume names; a missing one is an error unless the
// reference is optional, then an empty one (the kubelet's rule for both).
func configMap(ctx context.Context, c kubernetes.Interface, ns, name string, optional *bool) (*corev1.ConfigMap, error) {
	cm, err := c.CoreV1().ConfigMaps(ns).Get(ctx, name, metav1.GetOptions{})
	return orEmpty(cm, err, "configMap", name, optional)
}

// secret is configMap's rule for a Secret.
func secret(ctx context.Context, c kubernetes.Interface, ns, name string, optional *bool) (*corev1.Secret, error) {
	sec, err := c.CoreV1().Secrets(ns).Get(ctx, name, metav1.GetOptions{})
	return orEmpty(sec, err, "secret", name, optional)
}

// orEmpty applies the rule to a Get's result: the object, an empty one when the reference is
// optional and the Get failed, else the error naming the object.
func orEmpty[T any](obj *T, err error, kind, name string, optional *bool) (*T, error) {
	switch {
	case err == nil:
		return obj, nil
	case optional != nil && *optional:
		return new(T), nil
	}
	return nil, fmt.Errorf("%s %s: %w", kind, name, err)
}
