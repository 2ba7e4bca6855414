package judge

import (
	"go/ast"
	"slices"
	"strconv"
	"testing"

	"github.com/warmup-sidecar/warmup-sidecar/internal/gofiles"
)

// The judge decides and never does I/O: no HTTP, no goroutine of its own, no
// call of the Pinot client (pkg/pinot is read for its answer types only), and
// of the plan only its values (pkg/prober/plan's planning and engine detection
// ask the cluster).
func TestTheJudgeDoesNoIO(t *testing.T) {
	fset, files := gofiles.Parse(t, ".")
	for name, f := range files {
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			switch path {
			case "net", "net/http", "os", "os/exec", "github.com/go-resty/resty/v2":
				t.Errorf("%s imports %s", name, path)
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.GoStmt:
				t.Errorf("%s: a goroutine at %s", name, fset.Position(n.Pos()))
			case *ast.SelectorExpr:
				id, ok := n.X.(*ast.Ident)
				if ok && id.Name == "pinot" && (n.Sel.Name == "New" || n.Sel.Name == "Client") {
					t.Errorf("%s: pinot.%s at %s", name, n.Sel.Name, fset.Position(n.Pos()))
				}
				if ok && id.Name == "plan" && slices.Contains([]string{"Planner", "FindEngine", "DetectMultiStage"}, n.Sel.Name) {
					t.Errorf("%s: plan.%s at %s", name, n.Sel.Name, fset.Position(n.Pos()))
				}
			}
			return true
		})
	}
}
