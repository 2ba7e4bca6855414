// Package sidecar builds the warmup-sidecar binary and runs it as a child process
// for the e2e scenarios, the demo and the benchmark: the real binary, configured
// only through its environment, observed only through its HTTP endpoints and logs.
package sidecar

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/e2e/cluster"
	"github.com/warmup-sidecar/warmup-sidecar/internal/report"
)

// Build compiles ./cmd/warmup-sidecar (found from the repository root: the product module, not
// this tooling module) into dir.
func Build(ctx context.Context, dir string) (string, error) {
	root, err := cluster.RepoRoot()
	if err != nil {
		return "", err
	}
	out := filepath.Join(dir, "warmup-sidecar")
	cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-o", out, "./cmd/warmup-sidecar")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if b, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("building warmup-sidecar: %v\n%s", err, b)
	}
	return out, nil
}

// Proc is one running sidecar.
type Proc struct {
	URL  string
	cmd  *exec.Cmd
	logs *Logs
	done chan struct{}
	err  error
}

// Start runs bin with exactly env (plus PATH/HOME) and a free loopback listen
// address unless env sets WARMUP_LISTEN_ADDR. tee, if set, also receives the logs.
func Start(bin string, env map[string]string, tee io.Writer) (*Proc, error) {
	addr := env["WARMUP_LISTEN_ADDR"]
	if addr == "" {
		a, err := freeAddr()
		if err != nil {
			return nil, err
		}
		addr = a
	}
	cmd := exec.Command(bin)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"), "WARMUP_LISTEN_ADDR=" + addr}
	for k, v := range env {
		if k != "WARMUP_LISTEN_ADDR" {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
	}
	logs := &Logs{tee: tee}
	cmd.Stderr = logs
	cmd.Stdout = logs
	cmd.SysProcAttr = sysProcAttr()
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", bin, err)
	}
	p := &Proc{URL: "http://" + addr, cmd: cmd, logs: logs, done: make(chan struct{})}
	go func() { p.err = cmd.Wait(); close(p.done) }()
	return p, nil
}

func freeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("finding a free port: %w", err)
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

// PID of the sidecar process.
func (p *Proc) PID() int { return p.cmd.Process.Pid }

// Logs returns everything the sidecar wrote so far.
func (p *Proc) Logs() string { return p.logs.String() }

// Exited reports whether the process ended, and its error.
func (p *Proc) Exited() (bool, error) {
	select {
	case <-p.done:
		return true, p.err
	default:
		return false, nil
	}
}

// Stop sends SIGTERM, waits up to grace, then SIGKILLs. It returns the exit error
// of a process that stopped on SIGTERM (nil for exit 0).
func (p *Proc) Stop(grace time.Duration) error {
	if done, err := p.Exited(); done {
		return err
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
		return p.err
	case <-time.After(grace):
		_ = p.cmd.Process.Kill()
		<-p.done
		return fmt.Errorf("sidecar did not stop within %s of SIGTERM: killed", grace)
	}
}

var client = &http.Client{Timeout: 2 * time.Second}

// Get fetches a path of the sidecar.
func (p *Proc) Get(path string) (int, string, error) {
	resp, err := client.Get(p.URL + path)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), err
}

// Ready reports whether /readyz answers 200, and its body.
func (p *Proc) Ready() (bool, string) {
	code, body, err := p.Get("/readyz")
	if err != nil {
		return false, err.Error()
	}
	return code == http.StatusOK, strings.TrimSpace(body)
}

// Status fetches /status.
func (p *Proc) Status() (report.Status, error) {
	var s report.Status
	code, body, err := p.Get("/status")
	if err != nil {
		return s, err
	}
	if code != http.StatusOK {
		return s, fmt.Errorf("/status answered %d", code)
	}
	return s, json.Unmarshal([]byte(body), &s)
}

// Metric returns the value of the first sample of name whose labels contain
// every "k=\"v\"" in labels, from /metrics; ok false when absent.
func (p *Proc) Metric(name string, labels ...string) (float64, bool, error) {
	_, body, err := p.Get("/metrics")
	if err != nil {
		return 0, false, err
	}
	for _, line := range strings.Split(body, "\n") {
		if !strings.HasPrefix(line, name+" ") && !strings.HasPrefix(line, name+"{") {
			continue
		}
		match := true
		for _, l := range labels {
			match = match && strings.Contains(line, l)
		}
		if !match {
			continue
		}
		var v float64
		if _, err := fmt.Sscan(line[strings.LastIndexByte(line, ' ')+1:], &v); err != nil {
			return 0, false, fmt.Errorf("parsing %q: %w", line, err)
		}
		return v, true, nil
	}
	return 0, false, nil
}

// WaitReady polls /readyz every period until 200 or ctx ends; it returns how
// long that took.
func (p *Proc) WaitReady(ctx context.Context, period time.Duration) (time.Duration, error) {
	start := time.Now()
	for {
		if ok, _ := p.Ready(); ok {
			return time.Since(start), nil
		}
		if done, err := p.Exited(); done {
			return 0, fmt.Errorf("sidecar exited (%v) before ready; logs:\n%s", err, p.Logs())
		}
		select {
		case <-ctx.Done():
			_, why := p.Ready()
			return 0, fmt.Errorf("sidecar not ready after %s (%s)", time.Since(start).Round(time.Millisecond), why)
		case <-time.After(period):
		}
	}
}

// Logs is a concurrency-safe log buffer.
type Logs struct {
	mu  sync.Mutex
	b   bytes.Buffer
	tee io.Writer
}

func (l *Logs) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.tee != nil {
		_, _ = l.tee.Write(p)
	}
	return l.b.Write(p)
}

func (l *Logs) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// Lines returns the JSON log lines whose "msg" equals msg, decoded.
func (p *Proc) Lines(msg string) []map[string]any {
	var out []map[string]any
	for _, line := range strings.Split(p.Logs(), "\n") {
		var m map[string]any
		if json.Unmarshal([]byte(line), &m) == nil && m["msg"] == msg {
			out = append(out, m)
		}
	}
	return out
}
