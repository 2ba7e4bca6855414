package cluster

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
)

// RepoRoot finds the repository root (the product module's go.mod beside scripts/install-pinot.sh;
// e2e/go.mod, the tooling module's, has no scripts beside it) by walking up, first from the working
// directory (go test runs in the package dir, the demo from the repo), then from this source file.
func RepoRoot() (string, error) {
	var starts []string
	if wd, err := os.Getwd(); err == nil {
		starts = append(starts, wd)
	}
	if _, file, _, ok := runtime.Caller(0); ok {
		starts = append(starts, filepath.Dir(file))
	}
	for _, dir := range starts {
		for d := dir; ; d = filepath.Dir(d) {
			if _, err := os.Stat(filepath.Join(d, "scripts", "install-pinot.sh")); err == nil {
				if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
					return d, nil
				}
			}
			if filepath.Dir(d) == d {
				break
			}
		}
	}
	return "", errors.New("repo root not found: no go.mod with scripts/install-pinot.sh above the working directory")
}

// InstallPinot runs scripts/install-pinot.sh (a no-op after the first download) and returns the
// lib dir it prints last. The script's progress goes to progress (may be nil).
func InstallPinot(ctx context.Context, progress io.Writer) (string, error) {
	lib, err := InstallComponent(ctx, "pinot", progress)
	if err != nil {
		return "", err
	}
	jars, _ := filepath.Glob(filepath.Join(lib, "pinot-tools-*.jar"))
	if len(jars) == 0 {
		return "", fmt.Errorf("install pinot: %s has no pinot-tools jar", lib)
	}
	return lib, nil
}

// InstallJMXAgent returns the path of the Prometheus JMX exporter java agent jar (installed once by
// scripts/install-pinot.sh jmx-agent), for BrokerJMXAgentOpts.
func InstallJMXAgent(ctx context.Context, progress io.Writer) (string, error) {
	jar, err := InstallComponent(ctx, "jmx-agent", progress)
	if err != nil {
		return "", err
	}
	if _, err := os.Stat(jar); err != nil {
		return "", fmt.Errorf("install JMX exporter agent: %w", err)
	}
	return jar, nil
}

// InstallComponent runs `scripts/install-pinot.sh <what>` (pinot, kafka or jmx-agent) and returns
// the path it prints last: a lib dir, or the agent's jar.
func InstallComponent(ctx context.Context, what string, progress io.Writer) (string, error) {
	path, err := RunInstall(ctx, progress, "install-pinot.sh", what)
	if err != nil {
		return "", fmt.Errorf("install %s: %w", what, err)
	}
	return path, nil
}

// RunInstall runs one of the repository's install scripts (scripts/<script> args…: they install
// once, then cost a few stat calls) and returns the path it prints last: a lib dir, a bin dir.
// Its progress (stderr) goes to progress, or is quoted in the error when progress is nil.
func RunInstall(ctx context.Context, progress io.Writer, script string, args ...string) (string, error) {
	root, err := RepoRoot()
	if err != nil {
		return "", err
	}
	var out, errOut bytes.Buffer
	cmd := exec.CommandContext(ctx, "bash", append([]string{filepath.Join(root, "scripts", script)}, args...)...)
	cmd.Dir = root
	cmd.Stdout = &out
	cmd.Stderr = &errOut
	if progress != nil {
		cmd.Stderr = progress
	}
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("scripts/%s: %w\n%s", script, err, errOut.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	path := strings.TrimSpace(lines[len(lines)-1])
	if path == "" {
		return "", fmt.Errorf("scripts/%s printed no path", script)
	}
	return path, nil
}
