package boost

import (
	"testing"

	"github.com/warmup-sidecar/warmup-sidecar/internal/gofiles"
)

const inject = "github.com/warmup-sidecar/warmup-sidecar/internal/inject"

// The boost reads the broker as found and what the chart rendered for it: it links no room but
// the finding (and the shared node and values helpers), not the editing of the sidecar's
// containers and probes, nor Helm, and does no I/O.
func TestTheBoostKnowsOnlyTheFinding(t *testing.T) {
	gofiles.Boundary(t, ".", inject+"/boost", inject,
		[]string{inject + "/find", inject + "/yamlnode", inject + "/chartvalues"}, "helm.sh/")
	gofiles.ForbidImports(t, ".", "os", "os/exec", "net", "net/http")
}
