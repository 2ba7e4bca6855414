package find

import (
	"testing"

	"github.com/warmup-sidecar/warmup-sidecar/internal/gofiles"
)

const inject = "github.com/warmup-sidecar/warmup-sidecar/internal/inject"

// The finding says what the stream holds and knows nothing of what is done with it: it links no
// other room of warmup-inject (the node helpers aside), nor Helm, and does no I/O.
func TestTheFindingKnowsNoOtherRoom(t *testing.T) {
	gofiles.Boundary(t, ".", inject+"/find", inject, []string{inject + "/yamlnode"}, "helm.sh/")
	gofiles.ForbidImports(t, ".", "os", "os/exec", "net", "net/http")
}
