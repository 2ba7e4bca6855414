package controlplane

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/warmup-sidecar/warmup-sidecar/e2e/cluster"
)

// Binaries is where etcd, kube-apiserver, kube-controller-manager, kube-scheduler and kubectl
// are: WARMUP_KUBE_BIN if set, else what scripts/install-kube.sh built (it builds them on first
// use, minutes, and prints the directory). One rule, as envtest's KUBEBUILDER_ASSETS.
func Binaries() (string, error) {
	dir := os.Getenv("WARMUP_KUBE_BIN")
	if dir == "" {
		root, err := cluster.RepoRoot()
		if err != nil {
			return "", err
		}
		var stderr bytes.Buffer
		cmd := exec.Command("bash", filepath.Join(root, "scripts", "install-kube.sh"))
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			return "", fmt.Errorf("scripts/install-kube.sh: %w\n%s", err, stderr.String())
		}
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		dir = lines[len(lines)-1]
	}
	for _, b := range []string{"etcd", "kube-apiserver", "kube-controller-manager", "kube-scheduler", "kubectl"} {
		if _, err := os.Stat(filepath.Join(dir, b)); err != nil {
			return "", fmt.Errorf("control plane binaries in %s (WARMUP_KUBE_BIN or scripts/install-kube.sh): %w", dir, err)
		}
	}
	return dir, nil
}
