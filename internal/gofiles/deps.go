package gofiles

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// Deps lists the packages the package in dir links (go list -deps), itself
// included; a failing go list, or a list without the package itself, fails t.
func Deps(t testing.TB, dir, self string) []string {
	t.Helper()
	cmd := exec.Command("go", "list", "-deps", ".")
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	deps := strings.Fields(string(out))
	if !slices.Contains(deps, self) {
		t.Fatalf("go list -deps did not list %s itself: %q", self, out)
	}
	return deps
}
