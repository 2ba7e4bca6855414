package official

import (
	"testing"

	"github.com/warmup-sidecar/warmup-sidecar/internal/gofiles"
)

const inject = "github.com/warmup-sidecar/warmup-sidecar/internal/inject"

// The values route's translation compares two node trees: it links no room but the finding (and
// the node helpers), not the editing, the boost or the rendering, nor Helm, and does no I/O.
func TestTheOfficialValuesKnowOnlyTheFinding(t *testing.T) {
	gofiles.Boundary(t, ".", inject+"/official", inject, []string{inject + "/find", inject + "/yamlnode"}, "helm.sh/")
	gofiles.ForbidImports(t, ".", "os", "os/exec", "net", "net/http")
}
