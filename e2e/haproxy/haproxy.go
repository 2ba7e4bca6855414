// Package haproxy runs Debian's HAProxy on loopback as the broker Service of a fleet: one HTTP
// frontend, the brokers as the servers of one backend, each entered and removed at run time over
// the runtime API (the admin stats socket) by whoever models the Service's endpoints. The process
// runs in its own process group, dies with the Go process on Linux, and is stopped by its own pid.
package haproxy

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// Backend is one server of the backend: a broker's query listener.
type Backend struct {
	Name string // server name in the runtime API, e.g. broker-0
	Addr string // host:port
}

// Options configure one HAProxy.
type Options struct {
	// Bin is the haproxy executable. Empty: haproxy on PATH, else /usr/sbin/haproxy (Debian's).
	Bin string
	// WorkDir receives haproxy.cfg, the admin socket and haproxy.log. Required.
	WorkDir string
	// Listen is the frontend's host:port. Required.
	Listen   string
	Backends []Backend
	// SlowStart, when > 0, gives every server HAProxy's `slowstart`: a server that enters service
	// gets a weight (share of new requests) rising linearly from 0 to full over this span.
	SlowStart time.Duration
	// ServerTimeout bounds one request at the server side (0: 60 s): longer than any client's
	// timeout, so the client, not the proxy, decides when a query is abandoned.
	ServerTimeout time.Duration
	Logger        *slog.Logger
}

// LB is a running HAProxy.
type LB struct {
	opts   Options
	cmd    *exec.Cmd
	socket string
	done   chan struct{}
	log    *os.File
}

// BackendName is the one backend's name in the config and the runtime API.
const BackendName = "brokers"

// FullWeight is every server's configured weight: large enough that a slow start's ramp moves it
// in small steps (HAProxy scales the weight by the elapsed share of slowstart).
const FullWeight = 100

// Find returns the haproxy executable: bin if set, else haproxy on PATH, else Debian's path.
func Find(bin string) (string, error) {
	if bin != "" {
		return bin, nil
	}
	if p, err := exec.LookPath("haproxy"); err == nil {
		return p, nil
	}
	const debian = "/usr/sbin/haproxy"
	if _, err := os.Stat(debian); err == nil {
		return debian, nil
	}
	return "", errors.New("haproxy not found on PATH nor at /usr/sbin/haproxy: install Debian's haproxy (scripts/install-tools.sh)")
}

func (o Options) check() error {
	switch {
	case o.WorkDir == "":
		return errors.New("haproxy: WorkDir: want a directory")
	case o.Listen == "":
		return errors.New("haproxy: Listen: want host:port")
	case len(o.Backends) == 0:
		return errors.New("haproxy: Backends: want at least one")
	case o.SlowStart < 0:
		return fmt.Errorf("haproxy: SlowStart %s: want ≥ 0", o.SlowStart)
	}
	seen := map[string]bool{}
	for i, b := range o.Backends {
		if b.Name == "" || strings.ContainsAny(b.Name, " /\t\n") || seen[b.Name] {
			return fmt.Errorf("haproxy: Backends[%d].Name %q: want a unique name without spaces or /", i, b.Name)
		}
		if _, _, err := net.SplitHostPort(b.Addr); err != nil {
			return fmt.Errorf("haproxy: Backends[%d].Addr %q: want host:port", i, b.Addr)
		}
		seen[b.Name] = true
	}
	return nil
}

// Config is the haproxy.cfg for o, every server starting in maintenance (out of service) until
// SetReady enters it.
//
//   - `balance roundrobin`: a dynamic algorithm, the one `slowstart` ramps weights in.
//   - `retries 0`, no `option redispatch`: a Kubernetes Service does not retry, so a request
//     sent to a broker that refuses or drops it reaches the client as a failure.
//   - `option httplog` to stdout (haproxy.log): every request with the server that took it,
//     its status and timings, and how it ended (the termination state).
//   - `http-reuse never`: a request that goes to a backend after it left maintenance opens a
//     fresh connection; no idle server connection outlives a broker's restart.
func Config(o Options, socket string) string {
	st := o.ServerTimeout
	if st == 0 {
		st = 60 * time.Second
	}
	var b strings.Builder
	fmt.Fprintf(&b, `global
    stats socket %s mode 600 level admin
    maxconn 4096
    nbthread 1
    log stdout format raw daemon

defaults
    mode http
    log global
    option httplog
    retries 0
    timeout connect 1s
    timeout client 120s
    timeout server %dms
    http-reuse never

frontend service
    bind %s
    default_backend %s

backend %s
    balance roundrobin
`, socket, st.Milliseconds(), o.Listen, BackendName, BackendName)
	slow := ""
	if o.SlowStart > 0 {
		slow = fmt.Sprintf(" slowstart %dms", o.SlowStart.Milliseconds())
	}
	for _, s := range o.Backends {
		fmt.Fprintf(&b, "    server %s %s weight %d disabled%s\n", s.Name, s.Addr, FullWeight, slow)
	}
	return b.String()
}

// Start checks the config with `haproxy -c`, starts HAProxy in the foreground (-db) and waits
// until its frontend and admin socket accept connections.
func Start(ctx context.Context, o Options) (*LB, error) {
	if err := o.check(); err != nil {
		return nil, err
	}
	bin, err := Find(o.Bin)
	if err != nil {
		return nil, err
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if err := os.MkdirAll(o.WorkDir, 0o755); err != nil {
		return nil, fmt.Errorf("haproxy: work dir: %w", err)
	}
	socket := filepath.Join(o.WorkDir, "admin.sock")
	cfg := filepath.Join(o.WorkDir, "haproxy.cfg")
	if err := os.WriteFile(cfg, []byte(Config(o, socket)), 0o644); err != nil {
		return nil, fmt.Errorf("haproxy: write config: %w", err)
	}
	if out, err := exec.CommandContext(ctx, bin, "-c", "-f", cfg).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("haproxy: config %s rejected: %w\n%s", cfg, err, out)
	}
	logf, err := os.OpenFile(filepath.Join(o.WorkDir, "haproxy.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("haproxy: log: %w", err)
	}
	cmd := exec.Command(bin, "-db", "-f", cfg)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		logf.Close()
		return nil, fmt.Errorf("haproxy: start %s: %w", bin, err)
	}
	lb := &LB{opts: o, cmd: cmd, socket: socket, done: make(chan struct{}), log: logf}
	go func() {
		_ = cmd.Wait()
		logf.Close()
		close(lb.done)
	}()
	if err := lb.waitUp(ctx); err != nil {
		lb.Stop()
		return nil, err
	}
	o.Logger.Info("haproxy started", "pid", cmd.Process.Pid, "listen", o.Listen, "backends", len(o.Backends), "slowstart", o.SlowStart)
	return lb, nil
}

func (lb *LB) waitUp(ctx context.Context) error {
	deadline := time.Now().Add(10 * time.Second)
	for {
		select {
		case <-lb.done:
			return fmt.Errorf("haproxy exited while starting; see %s", lb.log.Name())
		default:
		}
		c1, err1 := net.DialTimeout("tcp", lb.opts.Listen, time.Second)
		c2, err2 := net.DialTimeout("unix", lb.socket, time.Second)
		for _, c := range []net.Conn{c1, c2} {
			if c != nil {
				c.Close()
			}
		}
		if err1 == nil && err2 == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("haproxy not up after 10 s: frontend %v, admin socket %v", err1, err2)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// URL is the frontend's base URL, the Service address clients use.
func (lb *LB) URL() string { return "http://" + lb.opts.Listen }

// PID is HAProxy's pid.
func (lb *LB) PID() int { return lb.cmd.Process.Pid }

// Stop kills HAProxy's process group (its own pid) and waits for it to exit. Idempotent.
func (lb *LB) Stop() {
	select {
	case <-lb.done:
		return
	default:
	}
	if err := syscall.Kill(-lb.cmd.Process.Pid, syscall.SIGKILL); err != nil {
		_ = lb.cmd.Process.Kill()
	}
	<-lb.done
}
