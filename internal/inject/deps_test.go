package inject

import (
	"os/exec"
	"strings"
	"testing"
)

// The sidecar binary links this package: it must not pull client-go back in through Helm's
// engine or chartutil (39 MB instead of 14 MB, and client-go's init work on every sidecar
// start). Helm's library is for the tests only.
func TestNoClientGoInTheBinary(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go not on PATH")
	}
	out, err := exec.Command(goBin, "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, stderrOf(err))
	}
	for _, p := range strings.Fields(string(out)) {
		if strings.HasPrefix(p, "k8s.io/") || p == "helm.sh/helm/v3/pkg/engine" || p == "helm.sh/helm/v3/pkg/chartutil" {
			t.Errorf("internal/inject depends on %s", p)
		}
	}
}
