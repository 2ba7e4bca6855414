package rollout

import (
	"context"
	"fmt"
	"time"
)

// An event's ratios are over its steady window, measured on the fleet as the previous event left
// it. When that event's arm ran its brokers at another CPU than this one's (on_boost_300m in a
// study whose brokers run as the chart ships them, or the arm after it), the baseline would be
// another CPU's p99: a 300m broker's is several times a broker's with the node's spare cores.
// readyCPU rolls the fleet to the arm's broker CPU first, unmeasured, so that every event's
// steady window is on brokers of the CPU its rollout brings in, as in a study of one CPU.

// readyCPU rolls the fleet, with no load, to arm's broker CPU when its pods run at another, with
// off_fast's pod template (no sidecar, the short probe: the quickest rollout), then warms it by
// Config.FleetWarmup of the load at rate, as a given rate's first event is. It returns what it
// did, for the event's record ("" when the fleet already had the arm's CPU).
func (e *env) readyCPU(ctx context.Context, arm string, rate float64) (string, error) {
	b, cfg := e.bed, e.cfg
	if cfg.sameCPU(b.tpl.cpu, arm) {
		return "", nil
	}
	wantReq, wantLim := cfg.armCPU(arm)
	t := podTemplate{arm: ArmOffFast, cpu: arm}
	cfg.Logger.Info("rolling the fleet to the arm's broker CPU first, unmeasured, with no load", "arm", arm, "template", t.String(),
		"cpu_request", wantReq, "cpu_limit", wantLim)
	from := time.Now()
	up, err := b.prepareUpgrade(ctx, t, b.replicas, from.UTC().Format(time.RFC3339Nano))
	if err != nil {
		return "", err
	}
	if err := up(ctx); err != nil {
		return "", err
	}
	if _, err := b.waitRolled(ctx, b.replicas, DefaultPodBound*time.Duration(b.replicas)); err != nil {
		return "", fmt.Errorf("roll the fleet to %s's broker CPU: %w", arm, err)
	}
	did := fmt.Sprintf("the fleet was first rolled to the arm's broker CPU (request %s, limit %s) with %s's pod template, unmeasured and with no load (%.0f s)",
		wantReq, wantLim, ArmOffFast, time.Since(from).Seconds())
	if cfg.FleetWarmup > 0 {
		if err := e.warmFleet(ctx, rate, cfg.FleetWarmup); err != nil {
			return "", err
		}
		did += fmt.Sprintf(", then warmed by %s of the load", cfg.FleetWarmup)
	}
	return did, nil
}

// sameCPU: arms a and b run their brokers at the same CPU request and limit.
func (c Config) sameCPU(a, b string) bool {
	ar, al := c.armCPU(a)
	br, bl := c.armCPU(b)
	return ar == br && al == bl
}
