package launch

import (
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/warmup-sidecar/warmup-sidecar/e2e/kube/podnet"
)

// pinotHome is where the image keeps Pinot, and its WORKDIR.
const pinotHome = "/opt/pinot"

// under says whether p (clean, absolute) is dir or inside it.
func under(p, dir string) bool { return p == dir || strings.HasPrefix(p, dir+"/") }

// place maps a path of the container's file system to the host, as the container would see it:
//
//   - under a volume mount: the mount's host path;
//   - under /opt/pinot: the image's file when the image holds it (Image, shared by every
//     container as an image's read-only layers are), else the container's own writable layer
//     (Dir/opt/pinot/...): a GC log, a heap dump, a data dir;
//   - under /tmp: the container's own /tmp (Dir/tmp/...);
//   - under /dev: the host's device (/dev/urandom is the same file in a container).
//
// Anything else is an error naming the path: the image holds nothing else the test bed has.
// Parent directories of a path in Dir are created, as the JVM writes log files without.
func (p *Pinot) place(c Container, ctr string) (string, error) {
	if host, ok := c.HostPath(ctr); ok {
		return host, nil
	}
	clean := path.Clean(ctr)
	switch {
	case under(clean, pinotHome):
		img := filepath.Join(p.Image, filepath.FromSlash(clean))
		if _, err := os.Stat(img); err == nil {
			return img, nil
		}
		return writable(c, clean)
	case under(clean, "/tmp"):
		return writable(c, clean)
	case under(clean, "/dev"):
		return ctr, nil
	}
	mounts := make([]string, 0, len(c.Mounts))
	for _, m := range c.Mounts {
		mounts = append(mounts, m.Path)
	}
	return "", fmt.Errorf("%s is in none of the volume mounts (%s), not in the image (%s) nor in /tmp: the test bed cannot place it",
		ctr, strings.Join(mounts, ", "), pinotHome)
}

// writable is clean's place in the container's writable layer, its directory created.
func writable(c Container, clean string) (string, error) {
	host := filepath.Join(c.Dir, filepath.FromSlash(clean))
	if err := os.MkdirAll(filepath.Dir(host), 0o755); err != nil {
		return "", fmt.Errorf("place %s: %w", clean, err)
	}
	return host, nil
}

// pathInOpt finds the absolute paths in a JVM option: a path starts at the option's start or
// after '=', ':', '@' or ',' (optionally as a file: URL), and runs to the next ':', '=' or ','
// (-Xlog:gc*:file=/x.log:time, -javaagent:/a.jar=/b.yml, -Djava.security.egd=file:/dev/urandom).
// "//" after a scheme (http://host/x) is no path.
var pathInOpt = regexp.MustCompile(`(^|[=:@,])(file:(?://)?)?(/[^/:=,][^:=,]*)`)

// translateOpt translates one JVM option: its pod-local addresses to the pod's host ports (each
// port declared first), then each absolute path to its place.
func (p *Pinot) translateOpt(c Container, opt string) (string, error) {
	if err := declare(c, opt); err != nil {
		return "", err
	}
	opt = c.Net.Rewrite(opt)
	var errs []error
	out := pathInOpt.ReplaceAllStringFunc(opt, func(m string) string {
		sub := pathInOpt.FindStringSubmatch(m)
		host, err := p.place(c, sub[3])
		if err != nil {
			errs = append(errs, err)
			return m
		}
		return sub[1] + sub[2] + host
	})
	if err := errors.Join(errs...); err != nil {
		return "", err
	}
	return out, nil
}

// declare declares the ports of the pod-local addresses in s (podnet.LocalPorts), so Rewrite
// translates them whichever container of the pod is launched first.
func declare(c Container, s string) error {
	for _, port := range podnet.LocalPorts(s) {
		if _, err := c.Net.HostPort(port); err != nil {
			return err
		}
	}
	return nil
}
