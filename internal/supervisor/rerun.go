package supervisor

import (
	"context"
	"fmt"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/pkg/gatehttp"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/prober"
)

// warmUntilOpen runs warmups until the gate may open: one run when fail-open;
// runs until warm when fail-closed, with a pause between them that doubles from
// RerunMin to RerunMax, so a run that ends at once (every query rejected) does
// not spin. False when the broker went away or ctx ended.
func (s *Supervisor) warmUntilOpen(ctx context.Context, lt *lifetime) bool {
	for {
		end := s.warmOnce(ctx, lt)
		if end.why != "" || ctx.Err() != nil {
			return false
		}
		if end.rep.Outcome == prober.OutcomeWarm || !s.Opts.FailClosed {
			s.Gate.Open()
			lt.opened = true
			s.phase(gatehttp.PhaseWarm, "warmup finished: "+string(end.rep.Outcome))
			return true
		}
		wait := lt.rerun.Next()
		s.Log.Log(ctx, end.level, "broker not warm and WARMUP_FAIL_CLOSED=true: readiness stays withdrawn, warming again",
			"outcome", end.rep.Outcome, "probes_succeeded", end.rep.Succeeded, "floor", s.Opts.Settings.MinIterations,
			"next_run_in", wait.String())
		s.phase(gatehttp.PhaseWarming, fmt.Sprintf("fail-closed: not warm (%s); next run in %s", end.rep.Outcome, wait))
		if why := s.watching(ctx, lt, func(ctx context.Context) { s.Sleep(ctx, wait) }); why != "" || ctx.Err() != nil {
			return false
		}
	}
}

// repeats lets a failure that repeats run after run into the log once per
// interval: the first time, whenever it changes, then at most once per every.
type repeats struct {
	every time.Duration
	key   string
	at    time.Time
}

// loud reports whether this occurrence of key is to be logged plainly.
func (r *repeats) loud(now time.Time, key string) bool {
	if key != r.key || now.Sub(r.at) >= r.every {
		r.key, r.at = key, now
		return true
	}
	return false
}
