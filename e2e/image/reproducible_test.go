//go:build image

package image

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/e2e/cluster"
)

// Building the same commit again, with the archive's version and timestamp, gives the same index
// digest and the same archive bytes.
func TestImageIsReproducible(t *testing.T) {
	p, a := readArchive(t)
	root, err := cluster.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	var platforms []string
	for _, img := range a.Images {
		platforms = append(platforms, img.OS+"/"+img.Architecture)
	}
	again := filepath.Join(t.TempDir(), "warmup-sidecar.oci.tar")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "scripts/image.sh", "--platforms", strings.Join(platforms, ","), "--out", again)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "VERSION="+a.Tag, fmt.Sprintf("SOURCE_DATE_EPOCH=%d", a.Images[0].Created.Unix()))
	start := time.Now()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("second build: %v\n%s", err, out)
	}
	t.Logf("second build took %s", time.Since(start).Round(100*time.Millisecond))
	first, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	second, err := os.ReadFile(again)
	if err != nil {
		t.Fatal(err)
	}
	d1, _ := os.ReadFile(strings.TrimSuffix(p, ".oci.tar") + ".digest")
	d2, _ := os.ReadFile(strings.TrimSuffix(again, ".oci.tar") + ".digest")
	if !bytes.Equal(d1, d2) || len(d1) == 0 || strings.TrimSpace(string(d1)) != a.IndexDigest {
		t.Errorf("index digest: first %q (archive says %s), second %q", d1, a.IndexDigest, d2)
	}
	if sha256.Sum256(first) != sha256.Sum256(second) {
		t.Errorf("archives differ: %x, %x", sha256.Sum256(first), sha256.Sum256(second))
	}
	t.Logf("both builds: index %s, archive sha256 %x", a.IndexDigest, sha256.Sum256(first))
}
