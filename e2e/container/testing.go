package container

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// LoadForTest loads the arch image of archive into a Podman of the test's own, which is closed at
// the test's end: every container, image, mount, cgroup and directory it made removed, and none
// of podman's default state places (made while it ran) left behind, or the test fails.
func LoadForTest(t testing.TB, ctx context.Context, archive, arch string) (*Podman, string) {
	t.Helper()
	before := globalState()
	dir, err := os.MkdirTemp("", "warmup-podman-")
	if err != nil {
		t.Fatal(err)
	}
	p, err := NewPodman(dir)
	if err != nil {
		os.RemoveAll(dir)
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := p.Close(); err != nil {
			t.Errorf("cleaning up after podman: %v", err)
		}
		for path := range globalState() {
			if !before[path] {
				t.Errorf("%s was made outside podman's directory and left behind", path)
			}
		}
	})
	image, err := p.Load(ctx, archive, arch)
	if err != nil {
		t.Fatal(err)
	}
	return p, image
}

// globalState lists what exists of the places podman, runc and containers/image keep state by
// default (and of TMPDIR's default).
func globalState() map[string]bool {
	found := map[string]bool{}
	for _, p := range []string{"/run/runc", "/run/crun", "/run/libpod", "/run/containers", "/var/lib/containers",
		"/etc/containers/networks", "/var/lib/cni", "/run/netns"} {
		if _, err := os.Stat(p); err == nil {
			found[p] = true
		}
	}
	tmp, _ := filepath.Glob("/var/tmp/*")
	for _, p := range tmp {
		found[p] = true
	}
	return found
}
