package container

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Ctr is one container podman runs.
type Ctr struct {
	p    *Podman
	Name string
	// URL is the sidecar's listener, from its rendered WARMUP_LISTEN_ADDR, on loopback.
	URL string
}

// Run starts the pod's sidecar from image as the kubelet would: the rendered command, args and
// env, its securityContext and resources, for no longer than ctx lasts. It shares the host's network namespace: a pod's
// containers share one, so the sidecar's 127.0.0.1 is the broker's, here the test's. Ulimits are
// explicit, no higher than this process may set (podman's defaults exceed them here).
func (p *Podman) Run(ctx context.Context, image string, pod Pod) (*Ctr, error) {
	c := pod.Sidecar
	if len(c.VolumeMounts) > 0 {
		return nil, fmt.Errorf("container %s mounts volumes (%v): not run here", c.Name, c.VolumeMounts)
	}
	user, err := p.Output(ctx, "image", "inspect", "--format", "{{.Config.User}}", image)
	if err != nil {
		return nil, err
	}
	security, err := SecurityFlags(c.SecurityContext, strings.TrimSpace(user))
	if err != nil {
		return nil, err
	}
	resources, err := ResourceFlags(c.Resources)
	if err != nil {
		return nil, err
	}
	limits, err := ulimitFlags()
	if err != nil {
		return nil, err
	}
	url, err := listenURL(c.EnvMap()["WARMUP_LISTEN_ADDR"])
	if err != nil {
		return nil, err
	}
	name := "warmup-sidecar-" + randomHex()
	// conmon kills the container at ctx's deadline even if this process is gone by then (a test
	// binary that timed out skips its cleanups).
	lifetime := 30 * time.Minute
	if d, ok := ctx.Deadline(); ok {
		lifetime = time.Until(d)
	}
	args := []string{"run", "--detach", "--name", name, "--network", "host",
		"--cgroup-parent", p.cgroupParent, "--log-driver", "k8s-file", "--pull", "never",
		"--timeout", strconv.Itoa(max(int(lifetime.Seconds()), 1))}
	args = append(append(append(args, security...), resources...), limits...)
	for _, e := range c.Env {
		if len(e.ValueFrom) > 0 {
			return nil, fmt.Errorf("env %s takes its value from %s: not run here", e.Name, e.ValueFrom)
		}
		args = append(args, "--env", e.Name+"="+e.Value)
	}
	if len(c.Command) > 0 {
		ep, _ := json.Marshal(c.Command)
		args = append(args, "--entrypoint", string(ep))
	}
	args = append(append(args, image), c.Args...)
	if _, err := p.Output(ctx, args...); err != nil {
		// A failed create can leave the container behind: Close removes it.
		return nil, fmt.Errorf("starting the sidecar container: %w", err)
	}
	return &Ctr{p: p, Name: name, URL: url}, nil
}

// ulimitFlags sets nofile to this process's hard limit and nproc to its hard limit, capped at
// the kernel's pid_max: runc may not set a higher one here.
func ulimitFlags() ([]string, error) {
	var nofile, nproc syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &nofile); err != nil {
		return nil, fmt.Errorf("reading RLIMIT_NOFILE: %w", err)
	}
	const rlimitNPROC = 6 // not in package syscall
	if err := syscall.Getrlimit(rlimitNPROC, &nproc); err != nil {
		return nil, fmt.Errorf("reading RLIMIT_NPROC: %w", err)
	}
	procs := nproc.Max
	if b, err := os.ReadFile("/proc/sys/kernel/pid_max"); err == nil {
		if n, err := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64); err == nil {
			procs = min(procs, n)
		}
	}
	return []string{
		"--ulimit", fmt.Sprintf("nofile=%d:%d", nofile.Max, nofile.Max),
		"--ulimit", fmt.Sprintf("nproc=%d:%d", procs, procs),
	}, nil
}

// listenURL is the loopback URL of a listen address such as ":9095".
func listenURL(addr string) (string, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil || port == "" {
		return "", fmt.Errorf("WARMUP_LISTEN_ADDR %q: expected host:port or :port", addr)
	}
	if host == "" || host == "0.0.0.0" || host == "::" {
		host = "127.0.0.1"
	}
	return "http://" + net.JoinHostPort(host, port), nil
}

func randomHex() string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// PID is the container's main process, as the host sees it.
func (c *Ctr) PID(ctx context.Context) (int, error) {
	out, err := c.p.Output(ctx, "inspect", "--format", "{{.State.Pid}}", c.Name)
	if err != nil {
		return 0, err
	}
	pid, err := strconv.Atoi(strings.TrimSpace(out))
	if err != nil || pid <= 0 {
		return 0, fmt.Errorf("container %s has no running process (pid %q)", c.Name, strings.TrimSpace(out))
	}
	return pid, nil
}

// Logs returns what the container wrote so far (stdout and stderr), or why it cannot.
func (c *Ctr) Logs() string {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := c.p.Output(ctx, "logs", c.Name)
	if err != nil {
		return err.Error()
	}
	return out
}

// Signal sends sig (e.g. "TERM") to the container's main process.
func (c *Ctr) Signal(ctx context.Context, sig string) error {
	_, err := c.p.Output(ctx, "kill", "--signal", sig, c.Name)
	return err
}

// Wait blocks until the container exits, or ctx ends, and returns its exit code.
func (c *Ctr) Wait(ctx context.Context) (int, error) {
	out, err := c.p.Output(ctx, "wait", c.Name)
	if err != nil {
		return 0, err
	}
	code, err := strconv.Atoi(strings.TrimSpace(out))
	if err != nil {
		return 0, fmt.Errorf("podman wait %s printed %q, not an exit code", c.Name, out)
	}
	return code, nil
}

// ErrKilled: the container outlived the grace period and was killed, as the kubelet would.
var ErrKilled = errors.New("still running at the end of the grace period: killed")

// Stop ends the container as the kubelet ends a pod: SIGTERM, then SIGKILL once grace has passed.
// It returns the exit code and how long after SIGTERM the container exited.
func (c *Ctr) Stop(ctx context.Context, grace time.Duration) (int, time.Duration, error) {
	start := time.Now()
	if err := c.Signal(ctx, "TERM"); err != nil {
		return 0, 0, err
	}
	wctx, cancel := context.WithTimeout(ctx, grace)
	code, err := c.Wait(wctx)
	cancel()
	took := time.Since(start)
	if err == nil {
		return code, took, nil
	}
	if wctx.Err() == nil {
		return 0, took, err
	}
	if err := c.Signal(ctx, "KILL"); err != nil {
		return 0, took, err
	}
	code, err = c.Wait(ctx)
	return code, time.Since(start), errors.Join(ErrKilled, err)
}
