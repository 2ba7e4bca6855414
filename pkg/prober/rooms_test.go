package prober

import (
	"go/ast"
	"strings"
	"testing"

	"github.com/warmup-sidecar/warmup-sidecar/internal/gofiles"
)

// The plan's files (plan*.go: what to send) know nothing of the schedule's or
// the run's (schedule_*.go, run*.go: how to send it, and the wiring): the plan
// can be read, tested and moved on its own.
func TestThePlanKnowsNoScheduleAndNoRun(t *testing.T) {
	fset, parsed := gofiles.Parse(t, ".")
	declared := map[string]string{} // top-level name → its file
	for name, f := range parsed {
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil {
					declared[d.Name.Name] = name
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						declared[s.Name.Name] = name
					case *ast.ValueSpec:
						for _, id := range s.Names {
							declared[id.Name] = name
						}
					}
				}
			}
		}
	}
	plans := 0
	for name, f := range parsed {
		if !strings.HasPrefix(name, "plan") {
			continue
		}
		plans++
		ast.Inspect(f, func(n ast.Node) bool {
			id, ok := n.(*ast.Ident)
			if !ok {
				return true
			}
			if from := declared[id.Name]; strings.HasPrefix(from, "schedule_") || strings.HasPrefix(from, "run") {
				t.Errorf("%s uses %s from %s at %s", name, id.Name, from, fset.Position(id.Pos()))
			}
			return true
		})
	}
	if plans == 0 {
		t.Fatal("no plan*.go file found")
	}
}
