package bench

import (
	"context"
	"fmt"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/pkg/backoff"
)

// Before each restart the study waits for the machine to go quiet: busy below
// quietBusy of its cores for quietReadings readings in a row, at most quietLimit,
// so no restart starts while the one before it, or the warm-up before the first,
// still holds the shared cores (the first restart's excess server CPU is in
// prewarmProbes' comment). On the 2026-12-02 studies it found the machine quiet
// within 3–4 s every time: a guard, not a measured cure.
const (
	quietBusy     = 0.25
	quietReadings = 3
	quietEvery    = time.Second
	quietLimit    = 90 * time.Second
)

// quietResult is what waitQuiet saw.
type quietResult struct {
	Quiet  bool
	Waited time.Duration
	Busy   float64 // the last reading's busy share of all cores
}

func (q quietResult) String() string {
	if q.Quiet {
		return fmt.Sprintf("machine quiet (CPU busy < %.0f %% for %d s) after %s", quietBusy*100, quietReadings, q.Waited.Round(time.Second))
	}
	return fmt.Sprintf("machine not quiet after %s (CPU %.0f %% busy): restarted anyway", q.Waited.Round(time.Second), q.Busy*100)
}

// waitQuiet reads sample (busy and total CPU seconds, as MachineCPU) every
// `every` until quietReadings readings in a row were below quietBusy, limit
// passed, or ctx ended (its error).
func waitQuiet(ctx context.Context, sample func() (busy, total float64, err error), every, limit time.Duration) (quietResult, error) {
	begin := time.Now()
	busy0, total0, err := sample()
	if err != nil {
		return quietResult{}, err
	}
	var res quietResult
	run := 0
	for run < quietReadings {
		if time.Since(begin) >= limit {
			res.Waited = time.Since(begin)
			return res, nil
		}
		if !backoff.Sleep(ctx, every) {
			return res, ctx.Err()
		}
		busy, total, err := sample()
		if err != nil {
			return res, err
		}
		if total > total0 {
			res.Busy = (busy - busy0) / (total - total0)
		}
		busy0, total0 = busy, total
		if res.Busy < quietBusy {
			run++
		} else {
			run = 0
		}
	}
	res.Quiet, res.Waited = true, time.Since(begin)
	return res, nil
}
