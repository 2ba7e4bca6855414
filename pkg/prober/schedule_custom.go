package prober

import (
	"context"
	"errors"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/pkg/backoff"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/pinot"
)

// ErrAllProbesDropped ends a run whose every generated probe was rejected.
var ErrAllProbesDropped = errors.New("the broker rejected every probe as one it cannot compile")

func (r *run) custom(ctx context.Context, pl Plan) Report {
	live := append([]string(nil), pl.Queries...)
	answered := map[string]bool{}
	b := backoff.Doubling{Min: 20 * time.Millisecond, Max: time.Second}
	for {
		if rep, done := r.check(ctx, pl); done {
			return rep
		}
		batch := make([]string, 0, len(live)*r.s.Concurrency)
		for range r.s.Concurrency {
			batch = append(batch, live...)
		}
		bad, gaveUp := map[string]string{}, map[string]string{}
		res := r.round(ctx, batch, func(sql string, res pinot.Result) {
			if res.Class == pinot.BadQuery {
				bad[sql] = res.Message
			} else if why := r.j.GivenUp(sql); why != "" {
				gaveUp[sql] = why
			}
		})
		n := len(live)
		if live = r.dropBad(live, answered, bad, gaveUp); len(live) < n {
			r.tellFloors()
		}
		if len(live) == 0 {
			return Report{Outcome: OutcomeFailed, Err: ErrAllQueriesDropped, Plan: pl}
		}
		r.settle(ctx, res, &b)
	}
}

// dropBad removes queries whose first answer was a compile error, and those
// the give-up rule gave up (judge/giveup.go); later bad answers of a query that once
// worked only count as failures.
func (r *run) dropBad(live []string, answered map[string]bool, bad, gaveUp map[string]string) []string {
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
