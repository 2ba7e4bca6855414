package image

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/warmup-sidecar/warmup-sidecar/e2e/cluster"
)

// scripts/image.sh refuses bad input with one line naming what is wrong, exit 2, and builds
// nothing.
func TestImageScriptRefusesBadInput(t *testing.T) {
	root, err := cluster.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Fatal(err)
	}
	// A PATH holding only what the script runs before it looks for buildah.
	noBuildah := t.TempDir()
	for _, tool := range []string{"dirname", "realpath"} {
		p, err := exec.LookPath(tool)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(p, filepath.Join(noBuildah, tool)); err != nil {
			t.Fatal(err)
		}
	}
	emptyBins := t.TempDir()
	for _, tc := range []struct {
		name string
		args []string
		path string
		want string
	}{
		{"unsupported platform", []string{"--platforms", "linux/s390x"}, "", `unsupported platform "linux/s390x": expected one or more of linux/amd64, linux/arm64`},
		{"platform without its OS", []string{"--platforms", "linux/amd64,arm64"}, "", `unsupported platform "arm64"`},
		{"no platform", []string{"--platforms", ""}, "", "--platforms is empty"},
		{"flag without a value", []string{"--platforms"}, "", "--platforms needs a value"},
		{"unknown flag", []string{"--push"}, "", `unknown argument "--push"`},
		{"missing binary", []string{"--bin-dir", emptyBins}, "", "no executable binary for linux/amd64 at " + emptyBins + "/linux-amd64/warmup-sidecar"},
		{"no buildah", nil, noBuildah, "buildah not found on PATH"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "x.oci.tar")
			cmd := exec.Command(bash, append([]string{filepath.Join(root, "scripts", "image.sh"), "--out", out}, tc.args...)...)
			cmd.Env = append(os.Environ(), "VERSION=0.0.0-test", "SOURCE_DATE_EPOCH=1700000000")
			if tc.path != "" {
				cmd.Env = append(cmd.Env, "PATH="+tc.path)
			}
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != 2 {
				t.Fatalf("exit %v, want 2; stderr %q", err, stderr.String())
			}
			lines := strings.Split(strings.TrimRight(stderr.String(), "\n"), "\n")
			if len(lines) != 1 || !strings.HasPrefix(lines[0], "image: ") || !strings.Contains(lines[0], tc.want) {
				t.Errorf("stderr %q: want one line \"image: ...%s...\"", stderr.String(), tc.want)
			}
			if stdout.Len() > 0 {
				t.Errorf("stdout %q: want nothing", stdout.String())
			}
			if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("%s written (%v)", out, err)
			}
		})
	}
}
