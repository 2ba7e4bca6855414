package gatehttp

import (
	"os/exec"
	"strings"
	"testing"
)

// The gate package serves a gate: the sidecar's run state and its prober
// observer live in internal/report, so the gate links neither the prober nor
// the Pinot client.
func TestGateLinksNeitherProberNorPinot(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	const module = "github.com/warmup-sidecar/warmup-sidecar/"
	for _, p := range strings.Fields(string(out)) {
		for _, banned := range []string{module + "pkg/prober", module + "pkg/pinot"} {
			if p == banned {
				t.Errorf("pkg/gatehttp depends on %s", p)
			}
		}
	}
}
