// Package gofiles reads a Go package's own source and links for tests that hold a
// package's layout rules (what it imports, which of its files use which).
package gofiles

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// Parse parses the non-test .go files of dir, by file name; a file that does
// not parse fails t.
func Parse(t testing.TB, dir string) (*token.FileSet, map[string]*ast.File) {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	out := map[string]*ast.File{}
	for _, path := range names {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			t.Fatalf("parsing %s: %v", path, err)
		}
		out[filepath.Base(path)] = f
	}
	if len(out) == 0 {
		t.Fatalf("no Go file in %s", dir)
	}
	return fset, out
}
