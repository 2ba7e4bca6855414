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

// RepoRoot finds the module root by walking up to go.mod, first from the working directory (go
// test runs in the package dir, the demo from the repo), then from this source file.
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
	lib, err := runInstallScript(ctx, "install-pinot.sh", progress)
	if err != nil {
		return "", fmt.Errorf("install pinot: %w", err)
	}
	jars, _ := filepath.Glob(filepath.Join(lib, "pinot-tools-*.jar"))
	if len(jars) == 0 {
		return "", fmt.Errorf("install pinot: %s has no pinot-tools jar", lib)
	}
	return lib, nil
}

// InstallJMXAgent runs scripts/install-jmx-agent.sh (a no-op after the first download) and returns
// the path of the Prometheus JMX exporter java agent jar, for BrokerJMXAgentOpts.
func InstallJMXAgent(ctx context.Context, progress io.Writer) (string, error) {
	jar, err := runInstallScript(ctx, "install-jmx-agent.sh", progress)
	if err != nil {
		return "", fmt.Errorf("install JMX exporter agent: %w", err)
	}
	if _, err := os.Stat(jar); err != nil {
		return "", fmt.Errorf("install JMX exporter agent: %w", err)
	}
	return jar, nil
}

// runInstallScript runs scripts/<name> from the repo root and returns the last line it prints.
func runInstallScript(ctx context.Context, name string, progress io.Writer) (string, error) {
	root, err := RepoRoot()
	if err != nil {
		return "", err
	}
	if progress == nil {
		progress = io.Discard
	}
	var out bytes.Buffer
	cmd := exec.CommandContext(ctx, "bash", filepath.Join(root, "scripts", name))
	cmd.Dir = root
	cmd.Stdout = &out
	cmd.Stderr = progress
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("scripts/%s: %w", name, err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	last := strings.TrimSpace(lines[len(lines)-1])
	if last == "" {
		return "", fmt.Errorf("scripts/%s printed nothing", name)
	}
	return last, nil
}
