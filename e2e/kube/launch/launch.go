// Package launch is the test bed's stand-in for container images: no image can be pulled or run
// here, so each image a pod names is mapped to a launcher that builds the process its container
// would run, from the same spec (command, args, env, volume mounts) and the same software (the
// Pinot 1.5.1 install for apachepinot/pinot, this tree's warmup-sidecar binary for the sidecar
// image). docs/testbed.md lists each launcher's rules.
package launch

import (
	"fmt"
	"path"
	"path/filepath"
	"sort"
	"strings"
)

// Mount is one volume mount: the container's path and the host directory or file behind it.
type Mount struct {
	Path     string // in the container, e.g. /var/pinot/broker/config
	HostPath string
	ReadOnly bool
}

// PortMap is the pod's network (podnet.Pod): where a container port is served, and the rewrite of
// pod-local addresses in a string.
type PortMap interface {
	HostPort(port int32) (int, error)
	Rewrite(s string) string
}

// Container is what a launcher gets: the container's spec as the kubelet would hand it to the
// runtime, env already resolved (value, fieldRef, configMapKeyRef, secretKeyRef) and $(VAR)
// references in command and args expanded.
type Container struct {
	Pod     string // namespace/name
	Name    string
	Image   string
	Command []string
	Args    []string
	Env     []string // NAME=VALUE, in spec order
	Mounts  []Mount
	// Dir is the container's own directory on the host: the launcher's stand-in for the image's
	// writable filesystem (temp files, logs a process writes by path).
	Dir string
	Net PortMap
}

// Process is what the node agent runs (inside the container's cgroup).
type Process struct {
	Argv []string
	Env  []string
	Dir  string
}

// Launcher turns a container into a process.
type Launcher interface {
	Process(c Container) (Process, error)
}

// Registry maps image repositories (the image reference without tag or digest) to launchers.
type Registry map[string]Launcher

// For is the launcher for image, or an error naming the images the test bed can run.
func (r Registry) For(image string) (Launcher, error) {
	repo := Repository(image)
	if l, ok := r[repo]; ok {
		return l, nil
	}
	known := make([]string, 0, len(r))
	for k := range r {
		known = append(known, k)
	}
	sort.Strings(known)
	return nil, fmt.Errorf("image %q: the test bed has no launcher for %s (it runs %s)", image, repo, strings.Join(known, ", "))
}

// Repository is image without its tag and digest: "apachepinot/pinot:1.5.1" → "apachepinot/pinot".
func Repository(image string) string {
	if i := strings.Index(image, "@"); i >= 0 {
		image = image[:i]
	}
	if i := strings.LastIndex(image, ":"); i > strings.LastIndex(image, "/") {
		image = image[:i]
	}
	return image
}

// HostPath maps a path inside the container to the host: under a mount, the mount's host path
// (the longest mount wins, as the runtime stacks them); elsewhere ok is false.
func (c Container) HostPath(p string) (string, bool) {
	p = path.Clean(p)
	best := -1
	for i, m := range c.Mounts {
		mp := path.Clean(m.Path)
		if p == mp || strings.HasPrefix(p, mp+"/") {
			if best < 0 || len(mp) > len(path.Clean(c.Mounts[best].Path)) {
				best = i
			}
		}
	}
	if best < 0 {
		return "", false
	}
	m := c.Mounts[best]
	rest := strings.TrimPrefix(p, path.Clean(m.Path))
	return filepath.Join(m.HostPath, filepath.FromSlash(rest)), true
}

// Getenv is the value of name in c.Env (the last entry wins, as in a container).
func (c Container) Getenv(name string) (string, bool) {
	v, ok := "", false
	for _, kv := range c.Env {
		if k, val, found := strings.Cut(kv, "="); found && k == name {
			v, ok = val, true
		}
	}
	return v, ok
}
