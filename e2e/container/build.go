package container

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/warmup-sidecar/warmup-sidecar/e2e/cluster"
)

// BuildArchive builds the image of the working tree for platforms (e.g. "linux/amd64") with
// scripts/image.sh, after scripts/install-tools.sh, into dir; it returns the archive's path.
func BuildArchive(ctx context.Context, dir, platforms string) (string, error) {
	root, err := cluster.RepoRoot()
	if err != nil {
		return "", err
	}
	tools, err := cluster.RunInstall(ctx, nil, "install-tools.sh")
	if err != nil {
		return "", err
	}
	archive := filepath.Join(dir, "warmup-sidecar.oci.tar")
	build := exec.CommandContext(ctx, "bash", "scripts/image.sh", "--platforms", platforms, "--out", archive)
	build.Dir = root
	build.Env = append(os.Environ(), "PATH="+tools+":"+os.Getenv("PATH"))
	if b, err := build.CombinedOutput(); err != nil {
		return "", fmt.Errorf("scripts/image.sh: %w\n%s", err, b)
	}
	return archive, nil
}
