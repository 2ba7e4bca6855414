package gofiles

import (
	"slices"
	"strconv"
	"strings"
	"testing"
)

// Boundary holds a package of a program split into rooms (the packages below root) to its line:
// the package in dir, self, links of root and the packages below it only those allowed, and no
// package under a banned prefix (helm.sh/ for a room that must not render). Each other one fails t.
func Boundary(t testing.TB, dir, self, root string, allowed []string, banned ...string) {
	t.Helper()
	for _, dep := range Deps(t, dir, self) {
		if dep != self && (dep == root || strings.HasPrefix(dep, root+"/")) && !slices.Contains(allowed, dep) {
			t.Errorf("%s depends on %s", self, dep)
		}
		for _, b := range banned {
			if strings.HasPrefix(dep, b) {
				t.Errorf("%s depends on %s", self, dep)
			}
		}
	}
}

// ForbidImports fails t for each non-test .go file of dir that imports one of paths itself (a
// room that does no I/O forbids os, os/exec and net).
func ForbidImports(t testing.TB, dir string, paths ...string) {
	t.Helper()
	_, files := Parse(t, dir)
	for name, f := range files {
		for _, imp := range f.Imports {
			if p, _ := strconv.Unquote(imp.Path.Value); slices.Contains(paths, p) {
				t.Errorf("%s imports %s", name, p)
			}
		}
	}
}
