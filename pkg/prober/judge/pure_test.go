package judge

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The judge decides and never does I/O: no HTTP, no goroutine of its own, no
// call of the Pinot client (pkg/pinot is read for its answer types only).
func TestTheJudgeDoesNoIO(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
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
				if id, ok := n.X.(*ast.Ident); ok && id.Name == "pinot" && (n.Sel.Name == "New" || n.Sel.Name == "Client") {
					t.Errorf("%s: pinot.%s at %s", name, n.Sel.Name, fset.Position(n.Pos()))
				}
			}
			return true
		})
	}
}
