package container

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"
)

// Podman runs podman with the runc runtime and storage, state, events and cgroups of its own
// under one directory: nothing it makes outlives Close, and nothing lands in the machine's
// global container storage.
type Podman struct {
	dir          string
	cgroupParent string
	env          []string
}

// NewPodman prepares podman's configuration in dir, which it owns from then on (Close removes it).
// vfs storage (no overlay mounts), cgroupfs (no systemd), a file events log, and runc: crun
// cannot run containers where cgroup v2 is mounted in hybrid mode.
func NewPodman(dir string) (*Podman, error) {
	if _, err := exec.LookPath("podman"); err != nil {
		return nil, errors.New("podman not found on PATH: apt-get install podman (scripts/install-tools.sh installs it)")
	}
	runc, err := exec.LookPath("runc")
	if err != nil {
		return nil, errors.New("runc not found on PATH: apt-get install runc (scripts/install-tools.sh installs it)")
	}
	dir, err = filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	p := &Podman{dir: dir, cgroupParent: "/warmup-sidecar-test-" + filepath.Base(dir)}
	storage := fmt.Sprintf("[storage]\ndriver = \"vfs\"\ngraphroot = %q\nrunroot = %q\n",
		p.path("storage"), p.path("run"))
	ownEnv := []string{
		"CONTAINERS_STORAGE_CONF=" + p.path("storage.conf"),
		"CONTAINERS_CONF=" + p.path("containers.conf"),
		// containers/image stages big files in TMPDIR (/var/tmp by default).
		"TMPDIR=" + p.path("tmp"),
	}
	// conmon runs `podman container cleanup` when a container exits, with the environment
	// conmon_env_vars gives it: the same configuration, then.
	conmonEnv, _ := json.Marshal(append([]string{"PATH=" + os.Getenv("PATH")}, ownEnv...))
	engine := fmt.Sprintf(`[engine]
cgroup_manager = "cgroupfs"
events_logger = "file"
events_logfile_path = %q
tmp_dir = %q
static_dir = %q
volume_path = %q
conmon_env_vars = %s

[network]
network_config_dir = %q
`, p.path("events.log"), p.path("libpod"), p.path("storage", "libpod"), p.path("storage", "volumes"), conmonEnv, p.path("networks"))
	// runc keeps container state in /run/runc unless told otherwise, and podman passes no
	// runtime flags on to the cleanup it has conmon run: a wrapper named runc tells it.
	wrapper := fmt.Sprintf("#!/bin/sh\nexec %q --root %q \"$@\"\n", runc, p.path("runc"))
	for name, file := range map[string]struct {
		content string
		mode    os.FileMode
	}{"storage.conf": {storage, 0o644}, "containers.conf": {engine, 0o644}, "bin/runc": {wrapper, 0o755}} {
		if err := os.MkdirAll(filepath.Dir(p.path(name)), 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(p.path(name), []byte(file.content), file.mode); err != nil {
			return nil, fmt.Errorf("writing podman's %s: %w", name, err)
		}
	}
	if err := os.MkdirAll(p.path("tmp"), 0o700); err != nil {
		return nil, err
	}
	p.env = append(os.Environ(), ownEnv...)
	return p, nil
}

func (p *Podman) path(elem ...string) string {
	return filepath.Join(append([]string{p.dir}, elem...)...)
}

// Output runs podman with args and returns its stdout; an error carries its stderr.
func (p *Podman) Output(ctx context.Context, args ...string) (string, error) {
	return p.output(ctx, nil, args...)
}

// output runs podman under the command line prefix (none: directly).
func (p *Podman) output(ctx context.Context, prefix []string, args ...string) (string, error) {
	full := append(append(prefix, "podman", "--runtime", p.path("bin", "runc")), args...)
	cmd := exec.CommandContext(ctx, full[0], full[1:]...)
	cmd.Env = p.env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return stdout.String(), fmt.Errorf("podman %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return stdout.String(), nil
}

// Load pulls the arch image out of the OCI archive (an image index) into this storage and
// returns its image ID.
func (p *Podman) Load(ctx context.Context, archive, arch string) (string, error) {
	var prefix []string
	if os.Geteuid() == 0 {
		// Pulling as root, containers/image keeps a blob-info cache in /var/lib/containers/cache,
		// with no flag to move it: in a private mount namespace /var/lib is ours instead.
		varlib := p.path("varlib")
		if err := os.MkdirAll(varlib, 0o700); err != nil {
			return "", err
		}
		prefix = []string{"unshare", "--mount", "--propagation", "private", "--",
			"sh", "-c", `mount --bind "$0" /var/lib && exec "$@"`, varlib}
	}
	out, err := p.output(ctx, prefix, "pull", "--quiet", "--arch", arch, "oci-archive:"+archive)
	if err != nil {
		return "", fmt.Errorf("loading %s (%s): %w", archive, arch, err)
	}
	lines := strings.Fields(out)
	if len(lines) == 0 {
		return "", fmt.Errorf("loading %s (%s): podman printed no image ID", archive, arch)
	}
	return lines[len(lines)-1], nil
}

// Close removes every container and image, then checks that no mount is left under its
// directory, removes its cgroups and the directory. It returns everything it found left over.
func (p *Podman) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var errs []error
	if _, err := p.Output(ctx, "rm", "--all", "--force", "--time", "0"); err != nil {
		errs = append(errs, err)
	}
	if _, err := p.Output(ctx, "rmi", "--all", "--force"); err != nil {
		errs = append(errs, err)
	}
	mounts, err := mountsUnder(p.dir)
	if err != nil {
		errs = append(errs, err)
	}
	for _, m := range mounts {
		errs = append(errs, fmt.Errorf("a mount was left at %s: unmounting it", m))
		_ = syscall.Unmount(m, syscall.MNT_DETACH)
	}
	errs = append(errs, removeCgroups(p.cgroupParent))
	if err := os.RemoveAll(p.dir); err != nil {
		errs = append(errs, fmt.Errorf("removing podman's directory: %w", err))
	}
	return errors.Join(errs...)
}

// mountsUnder lists the mount points at or below dir, deepest first.
func mountsUnder(dir string) ([]string, error) {
	b, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return nil, fmt.Errorf("reading the mount table: %w", err)
	}
	var found []string
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) > 4 && (f[4] == dir || strings.HasPrefix(f[4], dir+"/")) {
			found = append(found, f[4])
		}
	}
	slices.SortFunc(found, func(a, b string) int { return len(b) - len(a) })
	return found, nil
}

// removeCgroups removes the cgroup parent's directory tree from every hierarchy, deepest first.
// Only empty cgroups can go: a process left in one is reported.
func removeCgroups(parent string) error {
	roots, _ := filepath.Glob("/sys/fs/cgroup/*" + parent)
	roots = append(roots, "/sys/fs/cgroup"+parent)
	var errs []error
	for _, root := range roots {
		var dirs []string
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				dirs = append(dirs, path)
			}
			return nil
		})
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("listing cgroup %s: %w", root, err))
		}
		slices.Reverse(dirs)
		for _, d := range dirs {
			if err := syscall.Rmdir(d); err != nil {
				errs = append(errs, fmt.Errorf("removing cgroup %s: %w", d, err))
			}
		}
	}
	return errors.Join(errs...)
}
