package controlplane

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/warmup-sidecar/warmup-sidecar/e2e/cluster"
)

// Binaries is where etcd, kube-apiserver, kube-controller-manager, kube-scheduler and kubectl
// are: WARMUP_KUBE_BIN if set, else what scripts/install-kube.sh built (it builds them on first
// use, minutes, and prints the directory). One rule, as envtest's KUBEBUILDER_ASSETS.
func Binaries() (string, error) {
	dir := os.Getenv("WARMUP_KUBE_BIN")
	if dir == "" {
		var err error
		if dir, err = cluster.RunInstall(context.Background(), nil, "install-kube.sh"); err != nil {
			return "", err
		}
	}
	for _, b := range []string{"etcd", "kube-apiserver", "kube-controller-manager", "kube-scheduler", "kubectl"} {
		if _, err := os.Stat(filepath.Join(dir, b)); err != nil {
			return "", fmt.Errorf("control plane binaries in %s (WARMUP_KUBE_BIN or scripts/install-kube.sh): %w", dir, err)
		}
	}
	return dir, nil
}
