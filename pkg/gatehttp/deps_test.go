package gatehttp

import (
	"testing"

	"github.com/warmup-sidecar/warmup-sidecar/internal/gofiles"
)

// The gate package serves a gate: the sidecar's run state and its prober
// observer live in internal/report, so the gate links neither the prober nor
// the Pinot client.
func TestGateLinksNeitherProberNorPinot(t *testing.T) {
	const module = "github.com/warmup-sidecar/warmup-sidecar/"
	for _, p := range gofiles.Deps(t, ".", module+"pkg/gatehttp") {
		for _, banned := range []string{module + "pkg/prober", module + "pkg/pinot"} {
			if p == banned {
				t.Errorf("pkg/gatehttp depends on %s", p)
			}
		}
	}
}
