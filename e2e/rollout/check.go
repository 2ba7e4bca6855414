package rollout

import (
	"errors"
	"fmt"
	"os"
	"time"
)

// Smoke returns cfg as the smoke run: two brokers, off and on_default, one rollout each, a model
// with 5 s / 2 s broker probes instead of 60 s / 10 s, short windows, a short calibration on a
// small table. It checks the tool end to end in a few minutes; its figures are no measurement.
func Smoke(cfg Config) Config {
	cfg.Smoke = true
	cfg.Brokers, cfg.Rollouts = 2, 1
	if len(cfg.Arms) == 0 {
		cfg.Arms = []string{ArmOff, ArmOnSlowStart}
	}
	m := DefaultModel()
	m.Broker.InitialDelay, m.Broker.Period = 5*time.Second, 2*time.Second
	m.Sidecar.Period = 2 * time.Second
	cfg.Model = m
	cfg.SlowStart = 5 * time.Second
	cfg.Warm, cfg.Steady, cfg.Tail, cfg.Settle = 2*time.Second, 8*time.Second, 8*time.Second, time.Second
	cfg.CalibrationLevels, cfg.CalibrationStep = []int{1, 4}, 2*time.Second
	cfg.FleetWarmup = min(cfg.FleetWarmup, 10*time.Second)
	cfg.RateFractions = []float64{0.5}
	cfg.BenchRows = 200_000
	return cfg
}

// CheckStudy fails when the output shows the tool did not work: an arm without its rollouts, a
// rollout without load, a pod never re-created, Ready or in service again, an ON pod whose
// sidecar never reported warm, or a missing file.
func CheckStudy(s *Study, cfg Config, o Outputs) error {
	var errs []error
	for _, arm := range cfg.Arms {
		a := s.Arms[arm]
		if a == nil || len(a.Rollouts) != cfg.Rollouts {
			errs = append(errs, fmt.Errorf("%s: %d rollouts, want %d", arm, len(rollouts(a)), cfg.Rollouts))
			continue
		}
		spec, _ := specOf(arm)
		for _, r := range a.Rollouts {
			errs = append(errs, checkResult(r, spec, s.Brokers)...)
			if cfg.JavaClient && (r.JavaClient == nil || r.JavaClient.Queries == 0) {
				errs = append(errs, fmt.Errorf("%s rollout %d: the Java client sent nothing in the rollout", arm, r.N))
			}
		}
	}
	for _, p := range append([]string{o.JSON, o.Markdown}, o.PNGs...) {
		if fi, err := os.Stat(p); err != nil || fi.Size() == 0 {
			errs = append(errs, fmt.Errorf("output %s missing or empty", p))
		}
	}
	if len(o.PNGs) != len(cfg.Arms) {
		errs = append(errs, fmt.Errorf("%d timelines for %d arms", len(o.PNGs), len(cfg.Arms)))
	}
	if _, err := ReadStudy(o.JSON); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

func rollouts(a *Arm) []*Result {
	if a == nil {
		return nil
	}
	return a.Rollouts
}

func checkResult(r *Result, spec armSpec, brokers int) []error {
	var errs []error
	name := fmt.Sprintf("%s rollout %d", r.Arm, r.N)
	if r.Steady.Queries == 0 || r.Queries == 0 || r.Steady.OK == 0 {
		errs = append(errs, fmt.Errorf("%s: no load (steady %d queries, %d ok; rollout %d)", name, r.Steady.Queries, r.Steady.OK, r.Queries))
	}
	if len(r.Pods) != brokers {
		errs = append(errs, fmt.Errorf("%s: %d pods re-created, want %d", name, len(r.Pods), brokers))
	}
	for _, p := range r.Pods {
		if p.TerminateSeconds <= 0 || p.HealthySeconds <= 0 || p.ReadySeconds <= 0 || p.InServiceSeconds <= 0 {
			errs = append(errs, fmt.Errorf("%s: pod %d never went through every transition: %+v", name, p.Pod, p))
		}
		if spec.sidecar && p.WarmSeconds <= 0 {
			errs = append(errs, fmt.Errorf("%s: pod %d's sidecar never reported warm", name, p.Pod))
		}
	}
	if len(r.Seconds) == 0 || len(r.States) == 0 {
		errs = append(errs, fmt.Errorf("%s: no timeline", name))
	}
	return errs
}
