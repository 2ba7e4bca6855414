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

// dockerfileStages parses the repository's Dockerfile.
func dockerfileStages(t *testing.T) []Stage {
	t.Helper()
	root, err := cluster.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(root, "Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	stages, err := ParseStages(string(b))
	if err != nil {
		t.Fatalf("parsing the Dockerfile: %v", err)
	}
	return stages
}

// The release target (distroless, built from source) and the prebuilt one (scratch, `make
// image`) must give a pod the same container: user, port, entrypoint, command and labels.
func TestDockerfileTargetsAgree(t *testing.T) {
	stages := dockerfileStages(t)
	release, ok := StageNamed(stages, "release")
	if !ok || stages[len(stages)-1].Name != "release" {
		t.Fatalf("the release stage must be the Dockerfile's last (its default target); stages %+v", stages)
	}
	prebuilt, ok := StageNamed(stages, "prebuilt")
	if !ok || prebuilt.From != "scratch" {
		t.Fatalf("want a stage \"prebuilt\" FROM scratch (nothing to pull); got %+v", prebuilt)
	}
	for _, kw := range []string{"USER", "EXPOSE", "ENTRYPOINT", "CMD", "LABEL"} {
		r, p := release.Args(kw), prebuilt.Args(kw)
		if len(r) == 0 || !slices.Equal(r, p) {
			t.Errorf("%s: release %q, prebuilt %q; want the same, at least one", kw, r, p)
		}
	}
	var entrypoint []string
	if err := json.Unmarshal([]byte(last(release.Args("ENTRYPOINT"))), &entrypoint); err != nil || len(entrypoint) == 0 {
		t.Errorf("ENTRYPOINT %q: want the exec (JSON) form: there is no shell in either image", release.Args("ENTRYPOINT"))
	}
}

// The chart runs the image: its user is the image's USER, its port the image's EXPOSE, its args
// the image's CMD (the chart sets them anyway; a difference would make `docker run` and the pod
// disagree), its image the one the labels say this repository publishes.
func TestChartAgreesWithTheImage(t *testing.T) {
	release, _ := StageNamed(dockerfileStages(t), "release")
	pod, err := container.RenderedPod("warmup:\n  controllerUrl: http://pinot-controller:9000\n")
	if err != nil {
		t.Fatal(err)
	}
	var sc container.SecurityContext
	if err := json.Unmarshal(pod.Sidecar.SecurityContext, &sc); err != nil || sc.RunAsUser == nil || sc.RunAsGroup == nil {
		t.Fatalf("rendered securityContext %s: want runAsUser and runAsGroup (%v)", pod.Sidecar.SecurityContext, err)
	}
	if user := fmt.Sprintf("%d:%d", *sc.RunAsUser, *sc.RunAsGroup); user != last(release.Args("USER")) {
		t.Errorf("chart runs as %s, the image's USER is %s", user, last(release.Args("USER")))
	}
	_, port, _ := strings.Cut(pod.Sidecar.EnvMap()["WARMUP_LISTEN_ADDR"], ":")
	if port != last(release.Args("EXPOSE")) {
		t.Errorf("chart listens on port %q, the image EXPOSEs %q", port, release.Args("EXPOSE"))
	}
	// The chart pulls the image from the registry of the repository its source label names.
	source := regexp.MustCompile(`org\.opencontainers\.image\.source="https://github\.com/([^"]+)"`).FindStringSubmatch(last(release.Args("LABEL")))
	if repo, _, _ := strings.Cut(pod.Sidecar.Image, ":"); len(source) < 2 || repo != "ghcr.io/"+source[1] {
		t.Errorf("chart image %q, source label %q: want ghcr.io/<the source repository>", pod.Sidecar.Image, source)
	}
	var cmd []string
	if err := json.Unmarshal([]byte(last(release.Args("CMD"))), &cmd); err != nil || !slices.Equal(cmd, pod.Sidecar.Args) || len(pod.Sidecar.Command) > 0 {
		t.Errorf("chart command %q args %q, image CMD %q: want no command and args equal to CMD", pod.Sidecar.Command, pod.Sidecar.Args, release.Args("CMD"))
	}
}

func last(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return s[len(s)-1]
}

func TestParseStages(t *testing.T) {
	stages, err := ParseStages(`ARG A=1
# a comment
FROM --platform=$BUILDPLATFORM golang:1 AS build
RUN a \
    b
FROM scratch AS out
LABEL x="1" \
      y="2"
USER 1:1
`)
	if err != nil {
		t.Fatal(err)
	}
	if len(stages) != 2 || stages[0].Name != "build" || stages[0].From != "golang:1" || stages[1].From != "scratch" {
		t.Fatalf("stages %+v", stages)
	}
	if got := stages[0].Args("RUN"); !slices.Equal(got, []string{"a b"}) {
		t.Errorf("RUN %q", got)
	}
	if got := stages[1].Args("LABEL"); !slices.Equal(got, []string{`x="1" y="2"`}) {
		t.Errorf("LABEL %q", got)
	}
	if _, err := ParseStages("USER 1\nFROM scratch\n"); err == nil {
		t.Error("USER before FROM accepted")
	}
}
