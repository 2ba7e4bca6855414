package schedule

import (
	"context"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/pkg/backoff"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/pinot"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/prober/plan"
)

func (r *Schedule) custom(ctx context.Context, pl plan.Plan) End {
	live := append([]string(nil), pl.Queries...)
	answered := map[string]bool{}
	b := backoff.Doubling{Min: 20 * time.Millisecond, Max: time.Second}
	for {
		if rep, done := r.check(ctx, pl); done {
			return rep
		}
		batch := make([]string, 0, len(live)*r.Settings.Concurrency)
		for range r.Settings.Concurrency {
			batch = append(batch, live...)
		}
		bad, gaveUp := map[string]string{}, map[string]string{}
		res := r.round(ctx, batch, func(sql string, res pinot.Result) {
			if res.Class == pinot.BadQuery {
				bad[sql] = res.Message
			} else if why := r.Judge.GivenUp(sql); why != "" {
				gaveUp[sql] = why
			}
		})
		n := len(live)
		if live = r.dropBad(live, answered, bad, gaveUp); len(live) < n {
			r.tellFloors()
		}
		if len(live) == 0 {
			return End{Err: ErrAllQueriesDropped, Plan: pl}
		}
		r.settle(ctx, res, &b)
	}
}

// dropBad removes queries whose first answer was a compile error, and those
// the give-up rule gave up (judge/giveup.go); later bad answers of a query that once
// worked only count as failures.
func (r *Schedule) dropBad(live []string, answered map[string]bool, bad, gaveUp map[string]string) []string {
	kept := live[:0]
	for _, q := range live {
		reason, isBad := bad[q]
		if isBad && !answered[q] {
			r.drop(q, reason)
			continue
		}
		if why, given := gaveUp[q]; given {
			r.drop(q, why)
			continue
		}
		answered[q] = true
		kept = append(kept, q)
	}
	return kept
}
