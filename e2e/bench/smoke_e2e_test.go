//go:build e2e

package bench_test

import (
	"log/slog"
	"os"
	"strconv"
	"testing"

	"github.com/warmup-sidecar/warmup-sidecar/e2e/bench"
)

// TestSmokeStudy runs the cold-start study's smoke version on a real local cluster: one cold
// broker restart per arm (off, on_default, on_limit1, on_custom), short windows, a short
// calibration. It checks the tool works end to end (bench.CheckStudy), not the sidecar's
// figures: those need the full study on a quiet machine (make bench).
//
//	go test -tags e2e -count=1 -v -timeout 20m -run SmokeStudy ./e2e/bench/
//
// WARMUP_BENCH_BASE_PORT moves the cluster's ports (default 29000); WARMUP_BENCH_WORK_DIR keeps
// the cluster, GC and sidecar logs and the per-query traces.
func TestSmokeStudy(t *testing.T) {
	base := bench.DefaultBasePort
	if v := os.Getenv("WARMUP_BENCH_BASE_PORT"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			t.Fatalf("WARMUP_BENCH_BASE_PORT=%q: %v", v, err)
		}
		base = n
	}
	work := os.Getenv("WARMUP_BENCH_WORK_DIR")
	cfg := bench.Smoke(bench.Config{
		BasePort: base, WorkDir: work, KeepWorkDir: work != "",
		Command: "go test -tags e2e -run SmokeStudy ./e2e/bench/",
		Logger:  slog.New(slog.NewTextHandler(os.Stderr, nil)),
	})
	res, err := bench.RunStudy(t.Context(), cfg, t.TempDir(), "smoke", true)
	if err != nil {
		t.Fatal(err)
	}
	for _, arm := range res.Study.ArmNames() {
		r := res.Study.Arms[arm].Restarts[0]
		t.Logf("%-10s cold cancel %5.1f%% p99 %6.0f ms timeUsed %6.1f ms peak %3d | warm cancel %4.1f%% p99 %5.0f ms | warmup %.1f s",
			arm, 100*r.ColdCancelRate, r.ColdP99Ms, r.ColdMeanTimeUsedMs, r.PeakInflight, 100*r.WarmCancelRate, r.WarmP99Ms, r.WarmupSeconds)
	}
}
