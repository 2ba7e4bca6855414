//go:build kube

package testbed

import (
	"context"
	"path/filepath"
	"regexp"
	"testing"
	"time"
)

// TestHelmRendersTheSidecarAsTheBedInstallsIt: the helm NewHelm finds runs the post-renderer the
// way Install and Upgrade ask it to (Release.args), with no cluster: `helm template` of the
// official chart with the same flags carries the sidecar in its broker StatefulSet.
func TestHelmRendersTheSidecarAsTheBedInstallsIt(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	h, err := NewHelm(ctx, filepath.Join(t.TempDir(), "kubeconfig"), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	a := Release{Name: "pinot", Namespace: "pinot", Set: []string{"zookeeper.enabled=false"}, Inject: true}.args()
	a[1] = h.Chart
	out, err := h.Run(ctx, append([]string{"template", "--kube-version", "1.36.0"}, a...)...)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(regexp.MustCompile(`(?m)^\s*- name: warmup-sidecar$`).FindAllString(out, -1)); n != 1 {
		t.Errorf("%d warmup-sidecar containers in the rendering, want 1 (the chart's one broker StatefulSet)", n)
	}
}
