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
	if err != nil {
		if optional != nil && *optional {
			return &corev1.ConfigMap{}, nil
		}
		return nil, fmt.Errorf("configMap %s: %w", name, err)
	}
	return cm, nil
}

// secret is configMap's rule for a Secret.
func secret(ctx context.Context, c kubernetes.Interface, ns, name string, optional *bool) (*corev1.Secret, error) {
	s, err := c.CoreV1().Secrets(ns).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		if optional != nil && *optional {
			return &corev1.Secret{}, nil
		}
		return nil, fmt.Errorf("secret %s: %w", name, err)
	}
	return s, nil
}
