package render

import (
	"testing"

	"github.com/warmup-sidecar/warmup-sidecar/internal/gofiles"
)

const inject = "github.com/warmup-sidecar/warmup-sidecar/internal/inject"

// The rendering knows the chart and Helm, not what is done with what it renders: it links no room
// of warmup-inject but the values helpers (not the finding, the editing or the boost).
func TestTheRenderingKnowsNoOtherRoom(t *testing.T) {
	gofiles.Boundary(t, ".", inject+"/render", inject, []string{inject + "/chartvalues"})
}
