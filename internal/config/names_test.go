package config

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The WARMUP_ names are this package's (and the binary's) to map: pkg/ is a
// library another program configures its own way, so none of them appears there.
func TestNoVariableNamesInPkg(t *testing.T) {
	root := filepath.Join("..", "..", "pkg")
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for i, line := range strings.Split(string(b), "\n") {
			if strings.Contains(line, Prefix+"_") {
				t.Errorf("%s:%d names a %s_ variable: %s", path, i+1, Prefix, strings.TrimSpace(line))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
