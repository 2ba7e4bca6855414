package testbed

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/warmup-sidecar/warmup-sidecar/e2e/cluster"
)

// TestKubeE2EScriptRefusesAMachineWithout: scripts/kube-e2e.sh on a machine without Go or Java
// says what is missing in one line and exits 2, before building anything.
func TestKubeE2EScriptRefusesAMachineWithout(t *testing.T) {
	root, err := cluster.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	for _, tc := range []struct {
		have []string // tools on PATH besides the shell's
		want string
	}{
		{have: []string{"java"}, want: "go is not on PATH"},
		{have: []string{"go"}, want: "java is not on PATH and JAVA_HOME is unset"},
	} {
		bin := t.TempDir()
		for _, tool := range append([]string{"dirname", "mkdir", "rmdir"}, tc.have...) {
			p, err := exec.LookPath(tool)
			if err != nil {
				t.Skipf("no %s on this machine", tool)
			}
			if err := os.Symlink(p, filepath.Join(bin, tool)); err != nil {
				t.Fatal(err)
			}
		}
		cmd := exec.Command(bash, filepath.Join(root, "scripts", "kube-e2e.sh"), "smoke")
		cmd.Env = []string{"PATH=" + bin, "HOME=" + t.TempDir()}
		out, err := cmd.CombinedOutput()
		code := cmd.ProcessState.ExitCode()
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		if code != 2 || len(lines) != 1 || !strings.Contains(lines[0], tc.want) {
			t.Errorf("with only %v on PATH: exit %d (%v), output %q; want exit 2 and one line saying %q", tc.have, code, err, out, tc.want)
		}
	}
}
