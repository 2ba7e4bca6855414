package rollout

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"time"
)

// Smoke returns cfg as the smoke run: two brokers of 700m CPU each, off and on_fast, one
// rollout each, the broker's readiness probe at 5 s / 2 s instead of the chart's 60 s / 10 s and
// the sidecar's every 2 s (on_fast: the gate's 1 s), short windows, a short calibration on a small table. It checks the
// tool end to end on the test bed in a few minutes; its figures are no measurement.
func Smoke(cfg Config) Config {
	cfg.Smoke = true
	cfg.Brokers, cfg.Rollouts = 2, 1
	if len(cfg.Arms) == 0 {
		cfg.Arms = []string{ArmOff, ArmOnFast}
	}
	cfg.BrokerCPURequest, cfg.BrokerCPULimit = "700m", "700m"
	cfg.ReadinessDelay, cfg.ReadinessPeriod, cfg.SidecarProbePeriod = 5*time.Second, 2*time.Second, 2*time.Second
	cfg.SlowStart = 5 * time.Second
	cfg.Warm, cfg.Steady, cfg.Tail, cfg.Settle = 2*time.Second, 8*time.Second, 8*time.Second, time.Second
	cfg.SteadyWait = 30 * time.Second
	cfg.CalibrationLevels, cfg.CalibrationStep = []int{1, 4}, 2*time.Second
	cfg.FleetWarmup = min(cfg.FleetWarmup, 10*time.Second)
	cfg.RateFractions = []float64{0.5}
	cfg.BenchRows = 200_000
	return cfg
}

// CheckStudy fails when the output shows the tool did not work: an arm without its rollouts (or
// its scale-out), an event without load (a steady window with no answer counts as load when
// the event is recorded as unsettled and its queries timed out: the fleet was overloaded, the load
// reached it; in a smoke it is a failure), a pod never re-created (unless the event is recorded as
// unfinished; in a smoke that is a failure too), Ready or in service again, an ON pod whose
// sidecar never reported warm or whose warmup's cost was not measured with its run, a pod whose JIT was not read with the JMX agent on, a platform not recorded (versions, every event's steady CPU with
// each broker pod's), or a missing file.
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
			if cfg.Smoke && r.Unfinished != "" { // the smoke's events are light: unfinished is the tool's failure
				errs = append(errs, fmt.Errorf("%s rollout %d did not finish: %s", arm, r.N, r.Unfinished))
			}
			errs = append(errs, checkResult(r, spec, s.Brokers, cfg.JMXAgent)...)
			if cfg.Smoke && r.Unsettled != "" {
				errs = append(errs, fmt.Errorf("%s rollout %d began unsettled: %s", arm, r.N, r.Unsettled))
			}
			if cfg.JavaClient && (r.JavaClient == nil || r.JavaClient.Queries == 0) {
				errs = append(errs, fmt.Errorf("%s rollout %d: the Java client sent nothing in the rollout", arm, r.N))
			}
		}
		if cfg.ScaleOut && len(a.ScaleOuts) != 1 {
			errs = append(errs, fmt.Errorf("%s: %d scale-outs, want 1", arm, len(a.ScaleOuts)))
		}
		for _, r := range a.ScaleOuts {
			errs = append(errs, checkResult(r, spec, 1, cfg.JMXAgent)...)
		}
	}
	errs = append(errs, checkPlatform(s)...)
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

func checkResult(r *Result, spec armSpec, brokers int, jmx bool) []error {
	var errs []error
	name := fmt.Sprintf("%s %s %d", r.Arm, r.Kind, r.N)
	overloaded := r.Unsettled != "" && r.Steady.Cancelled > 0 // timed out: the load reached the fleet
	if r.Steady.Queries == 0 || r.Queries == 0 || (r.Steady.OK == 0 && !overloaded) {
		errs = append(errs, fmt.Errorf("%s: no load (steady %d queries, %d ok; rollout %d)", name, r.Steady.Queries, r.Steady.OK, r.Queries))
	}
	if r.Unfinished != "" { // its pods did not all get through: the record says why
		if len(r.Seconds) == 0 || len(r.States) == 0 {
			errs = append(errs, fmt.Errorf("%s: no timeline", name))
		}
		return errs
	}
	if len(r.Pods) != brokers {
		errs = append(errs, fmt.Errorf("%s: %d pods created, want %d", name, len(r.Pods), brokers))
	}
	for _, p := range r.Pods {
		// A scale-out's pod replaces none: it has no termination.
		terminated := p.TerminateSeconds > 0 || r.Kind == "scale_out"
		if !terminated || p.HealthySeconds <= 0 || p.ReadySeconds <= 0 || p.InServiceSeconds <= 0 {
			errs = append(errs, fmt.Errorf("%s: pod %d never went through every transition: %+v", name, p.Pod, p))
		}
		if spec.sidecar && p.WarmSeconds <= 0 {
			errs = append(errs, fmt.Errorf("%s: pod %d's sidecar never reported warm", name, p.Pod))
		} else if spec.sidecar && !warmupRunRead(r, p.Pod) {
			errs = append(errs, fmt.Errorf("%s: pod %d: no warmup cost measured with its sidecar's run (its /status when the gate opened)", name, p.Pod))
		}
		if jmx && (p.JIT == nil || p.JIT.StartToInService == nil) {
			errs = append(errs, fmt.Errorf("%s: pod %d: no JIT compile time read from its broker's JMX agent up to its entry", name, p.Pod))
		}
	}
	if len(r.Seconds) == 0 || len(r.States) == 0 {
		errs = append(errs, fmt.Errorf("%s: no timeline", name))
	}
	return errs
}

// warmupRunRead: the event measured pod's warmup with its sidecar's run.
func warmupRunRead(r *Result, pod int) bool {
	for _, c := range r.WarmupCosts {
		if c.Pod == pod && c.Probes > 0 && c.RunS > 0 {
			return true
		}
	}
	return false
}

// checkPlatform: the test bed's versions and, for every event, a steady window in which every
// broker pod's CPU was read.
func checkPlatform(s *Study) []error {
	p := s.Platform
	if p == nil {
		return []error{errors.New("no platform recorded")}
	}
	var errs []error
	if p.Kubernetes == "" || p.Etcd == "" || p.Helm == "" || p.Chart == "" || p.Node.CPU == "" {
		errs = append(errs, fmt.Errorf("platform: versions or node missing: kubernetes %q, etcd %q, helm %q, chart %q, node cpu %q",
			p.Kubernetes, p.Etcd, p.Helm, p.Chart, p.Node.CPU))
	}
	events := 0
	for _, a := range s.Arms {
		events += len(a.Rollouts) + len(a.ScaleOuts)
	}
	if len(p.SteadyCPU) != events {
		errs = append(errs, fmt.Errorf("platform: %d steady CPU windows for %d events", len(p.SteadyCPU), events))
	}
	for _, w := range p.SteadyCPU {
		pods := 0
		for _, g := range w.Groups {
			if strings.HasPrefix(g.Name, "pod ") {
				pods++
			}
		}
		if pods != s.Brokers || w.Brokers <= 0 || w.Machine <= 0 {
			errs = append(errs, fmt.Errorf("platform: %s: CPU of %d broker pods read (want %d), brokers %.2f cores, machine %.2f", w.Event, pods, s.Brokers, w.Brokers, w.Machine))
		}
	}
	return errs
}
