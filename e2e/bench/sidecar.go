package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/e2e/cluster"
	"github.com/warmup-sidecar/warmup-sidecar/e2e/coldstart"
)

// BuildSidecar builds ./cmd/warmup-sidecar into dir and returns the binary's path.
func BuildSidecar(ctx context.Context, dir string) (string, error) {
	root, err := cluster.RepoRoot()
	if err != nil {
		return "", fmt.Errorf("build sidecar: %w", err)
	}
	bin := filepath.Join(dir, "warmup-sidecar")
	cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-o", bin, "./cmd/warmup-sidecar")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("build sidecar: go build ./cmd/warmup-sidecar: %w\n%s", err, out)
	}
	return bin, nil
}

// sidecar is one running warmup-sidecar process, in its own process group, stopped by its pid.
type sidecar struct {
	cmd  *exec.Cmd
	url  string // http://127.0.0.1:<port>
	log  *os.File
	done chan struct{}
}

// startSidecar runs bin serve with exactly env (plus PATH/HOME): every other WARMUP_*
// variable of this process is dropped, because the sidecar refuses unknown ones.
func startSidecar(bin, listen, logPath string, env map[string]string) (*sidecar, error) {
	if err := os.MkdirAll(filepath.Dir(logPath), 0o755); err != nil {
		return nil, fmt.Errorf("start sidecar: %w", err)
	}
	logf, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, fmt.Errorf("start sidecar: %w", err)
	}
	cmd := exec.Command(bin, "serve")
	cmd.Env = append(sidecarProcessEnv(env), "WARMUP_LISTEN_ADDR="+listen)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		logf.Close()
		return nil, fmt.Errorf("start sidecar: %w", err)
	}
	s := &sidecar{cmd: cmd, url: "http://" + listen, log: logf, done: make(chan struct{})}
	go func() {
		_ = cmd.Wait()
		logf.Close()
		close(s.done)
	}()
	return s, nil
}

const warmupEnvPrefix = "WARMUP_"

// sidecarProcessEnv is this process's environment without its WARMUP_* variables, plus env.
func sidecarProcessEnv(env map[string]string) []string {
	var out []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, warmupEnvPrefix) {
			out = append(out, kv)
		}
	}
	for k, v := range env {
		out = append(out, k+"="+v)
	}
	return out
}

// stop sends SIGTERM to the sidecar's pid (its own process group), SIGKILL after 5 s, and
// waits for it to exit.
func (s *sidecar) stop() {
	select {
	case <-s.done:
		return
	default:
	}
	_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGTERM)
	select {
	case <-s.done:
	case <-time.After(5 * time.Second):
		_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
		<-s.done
	}
}

func (s *sidecar) exited() bool {
	select {
	case <-s.done:
		return true
	default:
		return false
	}
}

// sidecarStatus is the part of the sidecar's /status the study records.
type sidecarStatus struct {
	Phase           string    `json:"phase"`
	Outcome         string    `json:"outcome"`
	ProbesSucceeded int64     `json:"probes_succeeded"`
	ProbesFailed    int64     `json:"probes_failed"`
	DurationSeconds float64   `json:"duration_seconds"`
	StartedAt       time.Time `json:"started_at"`
	Queries         []string  `json:"queries"`
	Tables          []string  `json:"tables"`
	LastError       string    `json:"last_error"`
	ExitReason      string    `json:"exit_reason"`
}

func (s *sidecar) status(ctx context.Context) (sidecarStatus, error) {
	var st sidecarStatus
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.url+"/status", nil)
	if err != nil {
		return st, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return st, fmt.Errorf("sidecar /status: %w", err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return st, fmt.Errorf("sidecar /status: %w", err)
	}
	if err := json.Unmarshal(b, &st); err != nil {
		return st, fmt.Errorf("sidecar /status: %w: %.200s", err, b)
	}
	return st, nil
}

func (st sidecarStatus) info() *coldstart.WarmupInfo {
	return &coldstart.WarmupInfo{Outcome: st.Outcome, ProbesSucceeded: st.ProbesSucceeded,
		ProbesFailed: st.ProbesFailed, DurationSeconds: st.DurationSeconds, ExitReason: st.ExitReason}
}
