package bench

import (
	"context"
	"fmt"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/e2e/coldstart"
)

// Result is a finished study and where it was written.
type Result struct {
	Study   *coldstart.Study
	Outputs Outputs
	WorkDir string
}

// RunStudy is the whole study: start the cluster, calibrate the rate when cfg.Rate is 0, run
// every arm × restart, write <outDir>/<name>.{json,md,png} and, with check, fail when the
// output shows the tool did not work (CheckStudy). The cluster is stopped before it returns.
func RunStudy(ctx context.Context, cfg Config, outDir, name string, check bool) (*Result, error) {
	cfg = cfg.withDefaults()
	begin := time.Now()
	env, err := Setup(ctx, cfg)
	if err != nil {
		return nil, err
	}
	defer env.Close()
	res := &Result{WorkDir: env.WorkDir()}
	cfg.Logger.Info("cluster ready", "elapsed", time.Since(begin).Round(time.Second), "broker", env.Cluster.BrokerURL(), "work", env.WorkDir())
	rate := cfg.Rate
	var calib *coldstart.Calibration
	if rate == 0 {
		if calib, err = env.Calibrate(ctx); err != nil {
			return res, err
		}
		rate = calib.Rate
	}
	s, traces, err := env.Study(ctx, rate, calib)
	res.Study = s
	if err != nil {
		return res, err
	}
	if res.Outputs, err = WriteResults(outDir, name, s, traces); err != nil {
		return res, err
	}
	cfg.Logger.Info("study written", "json", res.Outputs.JSON, "elapsed", time.Since(begin).Round(time.Second))
	if check {
		if err := CheckStudy(s, cfg.Arms, cfg.Restarts, res.Outputs); err != nil {
			return res, fmt.Errorf("the study's output shows the tool did not work:\n%w", err)
		}
	}
	return res, nil
}

// Smoke returns cfg with the smoke version's settings: one restart per arm, a 3 s cold
// window, a [10 s, 13 s) warm window, 2 s settles and a short calibration. It checks the tool
// end to end in a few minutes; its figures are no measurement.
func Smoke(cfg Config) Config {
	cfg.Smoke = true
	cfg.Restarts = 1
	cfg.Cold, cfg.WarmStart, cfg.WarmEnd = 3*time.Second, 10*time.Second, 13*time.Second
	cfg.Settle = 2 * time.Second
	cfg.CalibrationLevels, cfg.CalibrationStep = []int{1, 4, 16}, 2*time.Second
	return cfg
}
