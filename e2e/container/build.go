package container

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/warmup-sidecar/warmup-sidecar/e2e/cluster"
)

// BuildArchive builds the image of the working tree for platforms (e.g. "linux/amd64") with
// scripts/image.sh, after scripts/install-tools.sh, into dir; it returns the archive's path.
func BuildArchive(ctx context.Context, dir, platforms string) (string, error) {
	root, err := cluster.RepoRoot()
	if err != nil {
		return "", err
	}
	tools := exec.CommandContext(ctx, "bash", "scripts/install-tools.sh")
	tools.Dir = root
	out, err := tools.Output()
	if err != nil {
		return "", fmt.Errorf("scripts/install-tools.sh: %w", err)
	}
	lines := strings.Fields(string(out))
	if len(lines) == 0 {
		return "", fmt.Errorf("scripts/install-tools.sh printed no bin dir")
	}
	archive := filepath.Join(dir, "warmup-sidecar.oci.tar")
	build := exec.CommandContext(ctx, "bash", "scripts/image.sh", "--platforms", platforms, "--out", archive)
	build.Dir = root
	build.Env = append(os.Environ(), "PATH="+lines[len(lines)-1]+":"+os.Getenv("PATH"))
	if b, err := build.CombinedOutput(); err != nil {
		return "", fmt.Errorf("scripts/image.sh: %w\n%s", err, b)
	}
	return archive, nil
}
