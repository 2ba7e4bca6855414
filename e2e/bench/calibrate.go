package bench

import (
	"context"
	"net/http"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/e2e/coldstart"
)

// Calibrate measures the local cluster's warm broker (see coldstart.Calibrate).
func (e *Env) Calibrate(ctx context.Context) (*coldstart.Calibration, error) {
	return CalibrateBroker(ctx, e.cfg, e.Cluster.BrokerURL(), nil)
}

// CalibrateBroker measures any warm broker with cfg's mix, levels and step.
func CalibrateBroker(ctx context.Context, cfg Config, brokerURL string, header http.Header) (*coldstart.Calibration, error) {
	cfg = cfg.withDefaults()
	bc := coldstart.NewBrokerClient(brokerURL, header)
	defer bc.Close()
	return coldstart.Calibrate(ctx, coldstart.CalibrateConfig{
		Levels: cfg.CalibrationLevels, Step: cfg.CalibrationStep, Fractions: cfg.RateFractions, Timeout: cfg.Timeout,
	}, cfg.Mix, bc.Send, func(msg string, args ...any) { cfg.Logger.Info(msg, args...) })
}

// settle waits d or until ctx ends.
func settle(ctx context.Context, d time.Duration) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(d):
		return nil
	}
}
