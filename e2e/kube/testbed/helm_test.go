//go:build kube

package testbed

import (
	"context"
	"path/filepath"
	"regexp"
	"testing"
	"time"
)

// TestHelmRendersTheSidecarAsTheBedInstallsIt: the helms NewHelm finds run the post-renderer the
// way Install and Upgrade ask them to, on Helm 4's plugin route and Helm 3's exec route, with no
// cluster: `helm template` of the official chart carries the sidecar in its broker StatefulSet.
func TestHelmRendersTheSidecarAsTheBedInstallsIt(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	h, err := NewHelm(ctx, filepath.Join(t.TempDir(), "kubeconfig"), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	h.KubeVersion = "v1.36.1"
	for _, route := range []Route{PluginRoute, ExecRoute} {
		out, err := h.Template(ctx, Release{Name: "pinot", Namespace: "pinot", Set: []string{"zookeeper.enabled=false"}, Sidecar: route})
		if err != nil {
			t.Fatalf("%s: %v", route, err)
		}
		if n := len(regexp.MustCompile(`(?m)^\s*- name: warmup-sidecar$`).FindAllString(out, -1)); n != 1 {
			t.Errorf("%s: %d warmup-sidecar containers in the rendering, want 1 (the chart's one broker StatefulSet)", route, n)
		}
	}
}
