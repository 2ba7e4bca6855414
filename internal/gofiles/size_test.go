package gofiles

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// maxPackageLines is the most non-test Go a package of the product may hold: past it a package
// does more than one job, and is split by job (pkg/prober's rooms, internal/inject's).
const maxPackageLines = 1500

// No package of the product (the module's cmd/, internal/ and pkg/) holds more than
// maxPackageLines lines of non-test Go.
func TestNoProductPackageIsTooLarge(t *testing.T) {
	root := filepath.Join("..", "..")
	lines := map[string]int{} // package directory, from the module root -> lines
	for _, top := range []string{"cmd", "internal", "pkg"} {
		err := filepath.WalkDir(filepath.Join(root, top), func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && d.Name() == "testdata" {
				return filepath.SkipDir
			}
			if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return nil
			}
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			dir, _ := filepath.Rel(root, filepath.Dir(path))
			lines[filepath.ToSlash(dir)] += bytes.Count(b, []byte("\n"))
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if lines["internal/gofiles"] == 0 || lines["cmd/warmup-sidecar"] == 0 {
		t.Fatalf("counted %d packages from %s, without this one or cmd/warmup-sidecar", len(lines), root)
	}
	for dir, n := range lines {
		if n > maxPackageLines {
			t.Errorf("%s: %d lines of non-test Go, over %d: split it by job", dir, n, maxPackageLines)
		}
	}
}
