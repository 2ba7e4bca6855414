package plan

import (
	"strings"
	"testing"

	"github.com/warmup-sidecar/warmup-sidecar/internal/gofiles"
)

// The plan (what to send) knows nothing of the prober's other rooms: not the
// schedule, the judge, the event or the run. It can be read, tested and
// reused on its own. The compiler forbids only cycles; this holds the line
// against any import, direct or through another package.
func TestThePlanImportsNoOtherRoomOfTheProber(t *testing.T) {
	const prober = "github.com/warmup-sidecar/warmup-sidecar/pkg/prober"
	for _, dep := range gofiles.Deps(t, ".", prober+"/plan") {
		if dep == prober || strings.HasPrefix(dep, prober+"/") && dep != prober+"/plan" {
			t.Errorf("the plan depends on %s", dep)
		}
	}
}
