package schedule

import (
	"context"
	"errors"

	"golang.org/x/time/rate"

	"github.com/warmup-sidecar/warmup-sidecar/pkg/pinot"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/prober/plan"
)

// The run's cap (Settings.MaxRate) bounds the queries a second the broker gets
// from the run, whatever they are: the engine's detection, the no-scatter step,
// every engine's and shape's probes. It is one more limiter of the pacer, which
// every query draws on beside its tables' quotas, with a burst of one: the broker
// sees the queries spaced, never a burst above the rate. A broker without a CPU
// limit shares its node's cores with the brokers already in service, and an
// uncapped warmup takes them as fast as the broker answers.

// paced is the run's pacer, made with the cap by the run's first query; the
// plan's tables and quotas join it once the plan is known (pacing).
func (r *Schedule) paced() *pacer {
	r.paceOnce.Do(func() {
		p := newPacer(r.Now, nil)
		if r.Settings.MaxRate > 0 {
			p.all = rate.NewLimiter(rate.Limit(r.Settings.MaxRate), 1)
		}
		r.pace = p
	})
	return r.pace
}

// Paced is the run's Broker with every query held to the run's cap: for the
// queries the run sends outside the schedule (the engine's detection).
func (r *Schedule) Paced() plan.Broker { return cappedBroker{r} }

type cappedBroker struct{ r *Schedule }

func (b cappedBroker) Query(ctx context.Context, q pinot.Query) pinot.Result {
	if !b.r.admit(ctx, q.SQL) {
		return pinot.Result{Class: pinot.Transient, Message: "budget ran out"}
	}
	return b.r.Broker.Query(ctx, q)
}

// errYielded ends the no-scatter step under a cap once the plan is made: its
// queries are an extra, and the floor probes need the tokens more.
var errYielded = errors.New("the no-scatter step yields to the floor probes")

// cutByRun reports whether ctx was cut for the run's own reasons (its outcome is
// known, the no-scatter step yielded): a probe cut so says nothing of the broker.
func cutByRun(ctx context.Context) bool {
	c := context.Cause(ctx)
	return errors.Is(c, errOutcomeKnown) || errors.Is(c, errYielded)
}
