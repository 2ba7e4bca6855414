package launch

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path"
	"reflect"
	"strings"

	"github.com/warmup-sidecar/warmup-sidecar/e2e/kube/podnet"
	"github.com/warmup-sidecar/warmup-sidecar/e2e/sidecar"
	"github.com/warmup-sidecar/warmup-sidecar/internal/config"
)

// SidecarImage is this project's image (charts/pinot-broker-warmup/values.yaml image.repository).
const SidecarImage = "ghcr.io/warmup-sidecar/warmup-sidecar"

// sidecarEntry is the image's ENTRYPOINT ["/warmup-sidecar"], CMD ["serve"] (Dockerfile).
var sidecarEntry = imageEntry{
	entrypoint: []string{"/warmup-sidecar"},
	cmd:        []string{"serve"},
	names:      []string{"/warmup-sidecar"},
}

// listenAddrVar is the sidecar's listen address variable.
const listenAddrVar = "WARMUP_LISTEN_ADDR"

// Sidecar is the launcher of SidecarImage: this tree's warmup-sidecar binary with the container's
// args and env, translated to the pod network and the volume mounts' host paths.
type Sidecar struct {
	Bin string // the warmup-sidecar binary
}

// NewSidecar builds ./cmd/warmup-sidecar into dir (sidecar.Build) for a launcher.
func NewSidecar(ctx context.Context, dir string) (*Sidecar, error) {
	bin, err := sidecar.Build(ctx, dir)
	if err != nil {
		return nil, fmt.Errorf("sidecar launcher: %w", err)
	}
	return &Sidecar{Bin: bin}, nil
}

// Process is the binary with the container's args (the image's CMD, serve, when the spec gives
// none) and its env in spec order, each value translated (translateEnv). A WARMUP_* variable the
// spec leaves unset whose default is a pod-local address (WARMUP_BROKER_URL's
// http://127.0.0.1:8099, WARMUP_LISTEN_ADDR's :9095) is set to the translated default, so the
// sidecar reaches its own pod. The listen address's host, when it means every interface, becomes
// 127.0.0.1: the pods share the machine, and a pod's ports are served on loopback.
func (s *Sidecar) Process(c Container) (Process, error) {
	fail := func(err error) (Process, error) {
		return Process{}, fmt.Errorf("launch container %s of pod %s (%s): %w", c.Name, c.Pod, SidecarImage, err)
	}
	if c.Net == nil {
		return fail(errors.New("no pod network"))
	}
	args, err := sidecarEntry.command(c)
	if err != nil {
		return Process{}, err
	}
	env := make([]string, 0, len(c.Env)+2)
	for _, kv := range c.Env {
		k, v, _ := strings.Cut(kv, "=")
		t, err := translateEnv(c, v)
		if err != nil {
			return fail(fmt.Errorf("env %s: %w", k, err))
		}
		env = append(env, k+"="+t)
	}
	for _, d := range addressDefaults() {
		if _, ok := c.Getenv(d.name); ok {
			continue
		}
		t, err := translateEnv(c, d.value)
		if err != nil {
			return fail(fmt.Errorf("env %s (default %s): %w", d.name, d.value, err))
		}
		env = append(env, d.name+"="+t)
	}
	for i, kv := range env {
		if k, v, _ := strings.Cut(kv, "="); k == listenAddrVar {
			env[i] = k + "=" + loopbackListen(v)
		}
	}
	if err := os.MkdirAll(c.Dir, 0o755); err != nil {
		return fail(err)
	}
	return Process{Argv: append([]string{s.Bin}, args...), Env: env, Dir: c.Dir}, nil
}

// translateEnv translates one env value: its pod-local addresses to the pod's host ports (each
// port declared first), and, when the value is an absolute path under a volume mount
// (WARMUP_AUTH_HEADER_FILE, WARMUP_BROKER_AOT_LOG...), the mount's host path.
func translateEnv(c Container, v string) (string, error) {
	if err := declare(c, v); err != nil {
		return "", err
	}
	v = c.Net.Rewrite(v)
	if path.IsAbs(v) {
		if host, ok := c.HostPath(v); ok {
			return host, nil
		}
	}
	return v, nil
}

// envDefault is a variable and its default.
type envDefault struct{ name, value string }

// addressDefaults are the sidecar's variables (internal/config's tags) whose default is a
// pod-local address, in Config's order.
func addressDefaults() []envDefault {
	var out []envDefault
	t := reflect.TypeOf(config.Config{})
	for i := range t.NumField() {
		f := t.Field(i)
		name, def := f.Tag.Get("envconfig"), f.Tag.Get("default")
		if name != "" && def != "" && len(podnet.LocalPorts(def)) > 0 {
			out = append(out, envDefault{name, def})
		}
	}
	return out
}

// loopbackListen is a listen address with an every-interface host (":p", "0.0.0.0:p", "[::]:p")
// bound to 127.0.0.1 instead; other addresses are kept.
func loopbackListen(addr string) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return addr
	}
	if host == "" || host == "0.0.0.0" || host == "::" {
		return net.JoinHostPort("127.0.0.1", port)
	}
	return addr
}
