//go:build image

package image

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/warmup-sidecar/warmup-sidecar/e2e/cluster"
	"github.com/warmup-sidecar/warmup-sidecar/e2e/container"
)

// maxUncompressed is the budget of each platform's image, unpacked.
const maxUncompressed = 12_000_000

// archivePath is the archive `make image` wrote, or WARMUP_IMAGE_ARCHIVE.
func archivePath(t *testing.T) string {
	t.Helper()
	p := os.Getenv("WARMUP_IMAGE_ARCHIVE")
	if p == "" {
		root, err := cluster.RepoRoot()
		if err != nil {
			t.Fatal(err)
		}
		p = filepath.Join(root, "dist", "warmup-sidecar.oci.tar")
	}
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("no image archive (%v): run make image, or set WARMUP_IMAGE_ARCHIVE", err)
	}
	return p
}

func readArchive(t *testing.T) (string, *container.Archive) {
	t.Helper()
	p := archivePath(t)
	a, err := container.ReadArchive(p)
	if err != nil {
		t.Fatal(err)
	}
	return p, a
}

// The archive holds one index, tagged with the version, of a linux/amd64 and a linux/arm64 image,
// each configured as the Dockerfile's prebuilt stage says, labelled, within the size budget, and
// holding the files the stage copies.
func TestArchiveHoldsBothPlatforms(t *testing.T) {
	_, a := readArchive(t)
	prebuilt, _ := StageNamed(dockerfileStages(t), "prebuilt")
	if !regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$`).MatchString(a.Tag) {
		t.Errorf("index tag %q: want the version, a valid tag", a.Tag)
	}
	var platforms []string
	for _, img := range a.Images {
		platforms = append(platforms, img.OS+"/"+img.Architecture)
	}
	slices.Sort(platforms)
	if want := []string{"linux/amd64", "linux/arm64"}; !slices.Equal(platforms, want) {
		t.Fatalf("platforms %q, want %q", platforms, want)
	}
	var entrypoint, cmd []string
	_ = json.Unmarshal([]byte(last(prebuilt.Args("ENTRYPOINT"))), &entrypoint)
	_ = json.Unmarshal([]byte(last(prebuilt.Args("CMD"))), &cmd)
	for _, img := range a.Images {
		c := img.Config
		name := img.OS + "/" + img.Architecture
		if c.User != last(prebuilt.Args("USER")) || !slices.Equal(c.Entrypoint, entrypoint) || !slices.Equal(c.Cmd, cmd) {
			t.Errorf("%s: user %q entrypoint %q cmd %q; the Dockerfile says %q %q %q", name, c.User, c.Entrypoint, c.Cmd,
				prebuilt.Args("USER"), entrypoint, cmd)
		}
		if _, ok := c.ExposedPorts[last(prebuilt.Args("EXPOSE"))+"/tcp"]; !ok || len(c.ExposedPorts) != 1 {
			t.Errorf("%s: exposed ports %v, the Dockerfile says %q", name, c.ExposedPorts, prebuilt.Args("EXPOSE"))
		}
		for _, k := range []string{"title", "source", "version", "revision", "licenses"} {
			if c.Labels["org.opencontainers.image."+k] == "" {
				t.Errorf("%s: no org.opencontainers.image.%s label; labels %v", name, k, c.Labels)
			}
		}
		if v, want := c.Labels["org.opencontainers.image.licenses"], repoLicense(t); v != want {
			t.Errorf("%s: licenses label %q, the repository's LICENSE is %q", name, v, want)
		}
		if v := c.Labels["org.opencontainers.image.version"]; v != a.Tag {
			t.Errorf("%s: version label %q, index tag %q", name, v, a.Tag)
		}
		if r := c.Labels["org.opencontainers.image.revision"]; !regexp.MustCompile(`^([0-9a-f]{40}|unknown)$`).MatchString(r) {
			t.Errorf("%s: revision label %q: want a commit", name, r)
		}
		for _, f := range []string{"/warmup-sidecar", "/etc/passwd", "/etc/group", "/etc/ssl/certs/ca-certificates.crt"} {
			if img.Files[f] == "" {
				t.Errorf("%s: no %s in the image; files %v", name, f, img.Files)
			}
		}
		if img.Uncompressed > maxUncompressed {
			t.Errorf("%s: %d bytes unpacked, over the %d budget", name, img.Uncompressed, maxUncompressed)
		}
		t.Logf("%s: %d bytes unpacked (budget %d), manifest %s", name, img.Uncompressed, maxUncompressed, img.ManifestDigest)
	}
	t.Logf("index %s tagged %s", a.IndexDigest, a.Tag)
}

// Beside the archive, each platform's SBOM describes the very binary in that platform's image.
func TestSBOMDescribesTheShippedBinary(t *testing.T) {
	p, a := readArchive(t)
	for _, img := range a.Images {
		file := fmt.Sprintf("%s.%s-%s.cdx.json", strings.TrimSuffix(p, ".oci.tar"), img.OS, img.Architecture)
		b, err := os.ReadFile(file)
		if err != nil {
			t.Errorf("%s/%s: %v", img.OS, img.Architecture, err)
			continue
		}
		var bom struct {
			BOMFormat string `json:"bomFormat"`
			Metadata  struct {
				Component struct {
					Name, Version string
				} `json:"component"`
				Properties []struct{ Name, Value string } `json:"properties"`
			} `json:"metadata"`
			Components []struct{ Name, Version string } `json:"components"`
		}
		if err := json.Unmarshal(b, &bom); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		props := map[string]string{}
		for _, pr := range bom.Metadata.Properties {
			props[pr.Name] = pr.Value
		}
		if bom.BOMFormat != "CycloneDX" || bom.Metadata.Component.Version != a.Tag || len(bom.Components) == 0 {
			t.Errorf("%s: format %q, version %q (want %q), %d components", file, bom.BOMFormat, bom.Metadata.Component.Version, a.Tag, len(bom.Components))
		}
		if got, want := props["cdx:gomod:binary:hash:SHA-256"], img.Files["/warmup-sidecar"]; got != want || props["cdx:gomod:build:env:GOARCH"] != img.Architecture {
			t.Errorf("%s: describes a binary with sha256 %s for %s; the %s image holds %s",
				file, got, props["cdx:gomod:build:env:GOARCH"], img.Architecture, want)
		}
		t.Logf("%s: %d components, binary sha256 %s", filepath.Base(file), len(bom.Components), props["cdx:gomod:binary:hash:SHA-256"])
	}
}
