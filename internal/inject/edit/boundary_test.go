package edit

import (
	"testing"

	"github.com/warmup-sidecar/warmup-sidecar/internal/gofiles"
)

const inject = "github.com/warmup-sidecar/warmup-sidecar/internal/inject"

// The editing changes the broker's pod and config as found: it links no room but the finding
// (and the shared node and values helpers), not the boost's objects nor the rendering, nor Helm,
// and does no I/O.
func TestTheEditingKnowsOnlyTheFinding(t *testing.T) {
	gofiles.Boundary(t, ".", inject+"/edit", inject,
		[]string{inject + "/find", inject + "/yamlnode", inject + "/chartvalues"}, "helm.sh/")
	gofiles.ForbidImports(t, ".", "os", "os/exec", "net", "net/http")
}
