package bench

import (
	"errors"
	"fmt"
	"image/png"
	"os"

	"github.com/warmup-sidecar/warmup-sidecar/e2e/coldstart"
)

// CheckStudy fails when a study's output shows the tool did not work: a missing arm or
// restart, a window without queries, a load that mostly failed, an ON arm whose sidecar
// reported no warmup, or output files that are missing or unreadable. It says nothing about
// whether the sidecar met its targets: that is a measurement, not a tool failure.
func CheckStudy(s *coldstart.Study, arms []string, restarts int, out Outputs) error {
	var errs []error
	for _, arm := range arms {
		a, ok := s.Arms[arm]
		if !ok {
			errs = append(errs, fmt.Errorf("arm %s: missing", arm))
			continue
		}
		if len(a.Restarts) != restarts {
			errs = append(errs, fmt.Errorf("arm %s: %d restarts, want %d", arm, len(a.Restarts), restarts))
		}
		for i, r := range a.Restarts {
			where := fmt.Sprintf("arm %s restart %d", arm, i+1)
			for _, w := range []struct {
				name string
				s    coldstart.WindowStats
			}{{"cold", r.Cold}, {"warm", r.Warm}} {
				if w.s.Queries == 0 {
					errs = append(errs, fmt.Errorf("%s: no queries in the %s window", where, w.name))
				} else if w.s.ErrorRate > 0.5 {
					errs = append(errs, fmt.Errorf("%s: %.0f%% of the %s window's queries failed (not cancelled: failed)", where, 100*w.s.ErrorRate, w.name))
				}
			}
			// All-cancelled windows are a measurement (an overloaded broker), not a broken tool;
			// a restart without a single answer in either window is.
			if r.Cold.OK+r.Warm.OK == 0 {
				errs = append(errs, fmt.Errorf("%s: not one successful query in the cold or warm window", where))
			}
			if (r.Warm.OK > 0 && r.Warm.MeanTimeUsedMs <= 0) || (r.Cold.OK > 0 && r.Cold.MeanTimeUsedMs <= 0) {
				errs = append(errs, fmt.Errorf("%s: no timeUsedMs parsed from the broker's answers", where))
			}
			switch {
			case coldstart.ArmBase(arm) == coldstart.ArmOff && r.WarmupSeconds != 0:
				errs = append(errs, fmt.Errorf("%s: warmup_seconds %.2f, want 0 for OFF", where, r.WarmupSeconds))
			case coldstart.ArmBase(arm) != coldstart.ArmOff && (r.Warmup == nil || r.Warmup.Outcome == "" || r.WarmupSeconds <= 0):
				errs = append(errs, fmt.Errorf("%s: the sidecar reported no finished warmup (%+v)", where, r.Warmup))
			case coldstart.ArmBase(arm) != coldstart.ArmOff && r.Warmup.ProbesSucceeded == 0:
				errs = append(errs, fmt.Errorf("%s: the sidecar's warmup had no successful probe (outcome %s)", where, r.Warmup.Outcome))
			}
			// A rejected cache is a finding; no reading of the JVM's AOT log is a broken tool.
			if coldstart.IsAOTArm(arm) && r.AOTCache == nil {
				errs = append(errs, fmt.Errorf("%s: no AOT cache state read from the broker JVM's log", where))
			}
		}
	}
	for _, p := range []string{out.JSON, out.Markdown} {
		if st, err := os.Stat(p); err != nil || st.Size() == 0 {
			errs = append(errs, fmt.Errorf("output %s missing or empty", p))
		}
	}
	if f, err := os.Open(out.PNG); err != nil {
		errs = append(errs, fmt.Errorf("plot: %w", err))
	} else {
		if _, err := png.Decode(f); err != nil {
			errs = append(errs, fmt.Errorf("plot %s: not a PNG: %w", out.PNG, err))
		}
		f.Close()
	}
	return errors.Join(errs...)
}
