//go:build image

package image

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/warmup-sidecar/warmup-sidecar/e2e/cluster"
)

// repoLicense is the SPDX identifier of the repository's LICENSE file, which the image's
// org.opencontainers.image.licenses label must name.
func repoLicense(t *testing.T) string {
	t.Helper()
	root, err := cluster.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(root, "LICENSE"))
	if err != nil {
		t.Fatalf("the repository's licence: %v", err)
	}
	if text := strings.Join(strings.Fields(string(b)), " "); strings.HasPrefix(text, "Apache License Version 2.0, January 2004") {
		return "Apache-2.0"
	}
	t.Fatal("LICENSE is not the Apache License 2.0 text; teach repoLicense its SPDX identifier")
	return ""
}
