package bench

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"syscall"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/e2e/coldstart"
)

// prewarmProbeLimit bounds the one warmup run: the default budget and the broker
// check, with room for a busy machine.
const prewarmProbeLimit = 2 * time.Minute

// prewarmProbes runs the sidecar's own warmup once (`warmup-sidecar once`, its
// defaults) against the warm broker before the first restart. In a rolling restart
// the servers a restarted broker meets have already served the warmup probes of
// the brokers restarted before it. Without this the study's first ON restart met
// servers whose multi-stage leaf path had never run (the builtin mix is
// single-stage): on 2026-12-02 each study's first on_default restart had 8.3–8.9 s
// of server CPU in its cold window against 3.9–5.6 s in the others, and 2–5× their
// cold p99 (smaller since, not gone: see results/coldstart/README.md). With it,
// every ON arm meets servers that have run the sidecar's probes. It returns the
// study's note, or "" when no arm runs the sidecar.
func (e *Env) prewarmProbes(ctx context.Context) string {
	if !slices.ContainsFunc(e.cfg.Arms, func(a string) bool { return a != coldstart.ArmOff }) {
		return ""
	}
	ctx, cancel := context.WithTimeout(ctx, prewarmProbeLimit)
	defer cancel()
	logPath := filepath.Join(e.work, "logs", "sidecar-prewarm.log")
	logf, err := os.Create(logPath)
	if err != nil {
		return fmt.Sprintf("servers not warmed with the sidecar's probes: %v", err)
	}
	defer logf.Close()
	cmd := exec.CommandContext(ctx, e.sidecar, "once", "-wait", "1m")
	cmd.Env = sidecarProcessEnv(e.sidecarEnv(coldstart.ArmOnDefault))
	cmd.Stdout, cmd.Stderr = logf, logf
	// Its own process group, killed whole if it outlives the limit.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	begin := time.Now()
	err = cmd.Run()
	took := time.Since(begin).Round(100 * time.Millisecond)
	var exit *exec.ExitError
	result := "warm"
	switch {
	case errors.As(err, &exit) && exit.ExitCode() == 1:
		result = "not warm (it ran to its budget)"
	case err != nil:
		result = fmt.Sprintf("failed: %v (log: %s)", err, logPath)
	}
	e.cfg.Logger.Info("servers warmed with the sidecar's probes", "seconds", took.Seconds(), "result", result)
	return fmt.Sprintf("servers warmed with the sidecar's probes before the first restart, as in a rolling "+
		"restart where earlier brokers' sidecars probed them: one `warmup-sidecar once` with its defaults "+
		"against the warm broker, %s in %s", result, took)
}
