package bench

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/warmup-sidecar/warmup-sidecar/e2e/cluster"
	"github.com/warmup-sidecar/warmup-sidecar/e2e/coldstart"
)

// fakeSidecar writes a script that records its arguments and WARMUP_* environment
// and exits with code.
func fakeSidecar(t *testing.T, dir, code string) (bin, record string) {
	t.Helper()
	bin, record = filepath.Join(dir, "warmup-sidecar"), filepath.Join(dir, "record")
	script := "#!/bin/sh\necho \"$@\" > " + record + "\nenv | grep '^WARMUP_' | sort >> " + record + "\nexit " + code + "\n"
	if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return bin, record
}

func prewarmEnv(t *testing.T, bin string, arms ...string) *Env {
	work := t.TempDir()
	if err := os.MkdirAll(filepath.Join(work, "logs"), 0o755); err != nil {
		t.Fatal(err)
	}
	return &Env{
		cfg:     Config{Arms: arms, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))},
		Cluster: &cluster.Cluster{}, sidecar: bin, work: work,
	}
}

func TestPrewarmProbesRunsTheSidecarOnceWithItsDefaults(t *testing.T) {
	t.Setenv("WARMUP_QUERY", "SELECT 1") // the tool's own environment must not reach it
	bin, record := fakeSidecar(t, t.TempDir(), "0")
	note := prewarmEnv(t, bin, coldstart.ArmOff, coldstart.ArmOnCustom).prewarmProbes(context.Background())
	if !strings.Contains(note, "warmup-sidecar once") || !strings.Contains(note, ", warm in ") {
		t.Errorf("note %q, want the run and its result", note)
	}
	b, err := os.ReadFile(record)
	if err != nil {
		t.Fatalf("the sidecar did not run: %v", err)
	}
	got := string(b)
	if !strings.HasPrefix(got, "once -wait 1m\n") || !strings.Contains(got, "WARMUP_BROKER_URL=http://") {
		t.Errorf("ran with %q, want `once` and the cluster's broker", got)
	}
	if strings.Contains(got, "WARMUP_QUERY") {
		t.Errorf("ran with %q: not the defaults", got)
	}
}

func TestPrewarmProbesSaysWhatWentWrong(t *testing.T) {
	bin, _ := fakeSidecar(t, t.TempDir(), "1")
	if note := prewarmEnv(t, bin, coldstart.ArmOnDefault).prewarmProbes(context.Background()); !strings.Contains(note, "not warm") {
		t.Errorf("exit 1: note %q, want not warm", note)
	}
	bin, _ = fakeSidecar(t, t.TempDir(), "2")
	if note := prewarmEnv(t, bin, coldstart.ArmOnDefault).prewarmProbes(context.Background()); !strings.Contains(note, "failed: exit status 2") {
		t.Errorf("exit 2: note %q, want the failure", note)
	}
	if note := prewarmEnv(t, bin, coldstart.ArmOff).prewarmProbes(context.Background()); note != "" {
		t.Errorf("OFF only: note %q, want no run", note)
	}
}
