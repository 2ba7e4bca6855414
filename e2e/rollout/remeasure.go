package rollout

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/e2e/coldstart"
)

// Remeasure recomputes the figures that splitByCause adds for every event of s from the raw
// traces a study kept in its work dir (workDir/raw), so a study run before they existed gains
// them without a new run. Each event's bounds are rebuilt from its stored figures, and its
// stored worst 10 s p99 must come out again: a trace that does not reproduce it is an error.
func Remeasure(s *Study, workDir string) error {
	for _, arm := range s.ArmNames() {
		a := s.Arms[arm]
		for _, r := range append(append([]*Result{}, a.Rollouts...), a.ScaleOuts...) {
			if err := remeasure(s, r, workDir); err != nil {
				return err
			}
		}
	}
	return nil
}

func remeasure(s *Study, r *Result, workDir string) error {
	tag := fmt.Sprintf("%s-%s-%d", r.Arm, r.Kind, r.N)
	path := filepath.Join(workDir, "raw", "rollout-"+tag+".json")
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("remeasure %s: %w", tag, err)
	}
	var rw raw
	if err := json.Unmarshal(b, &rw); err != nil {
		return fmt.Errorf("remeasure %s: %s: %w", tag, path, err)
	}
	if rw.Trace == nil {
		return fmt.Errorf("remeasure %s: %s holds no trace", tag, path)
	}
	sec := func(x float64) time.Duration { return time.Duration(math.Round(x * float64(time.Second))) }
	start := sec(r.RolloutStartSeconds)
	done := start + sec(r.DurationSeconds)
	tail := sec(s.TailS)
	if r.Unfinished != "" { // its load stopped at the bound
		tail = 0
	}
	steady := cmp.Or(r.SteadyStartSeconds, s.WarmS)
	bounds := Bounds{
		Steady:  coldstart.Window{Start: sec(steady), End: sec(steady + s.SteadyS)},
		Rollout: coldstart.Window{Start: start, End: done + tail},
		Done:    done,
	}
	if p99, _ := worstP99(rw.Trace, bounds.Rollout); math.Abs(p99-r.Worst10sP99Ms) > 1e-3 {
		return fmt.Errorf("remeasure %s: %s gives a worst 10 s p99 of %.3f ms, the study holds %.3f ms: not this event's trace", tag, path, p99, r.Worst10sP99Ms)
	}
	splitByCause(r, rw.Trace, rw.Events, bounds)
	return nil
}
