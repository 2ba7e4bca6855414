package supervisor

import (
	"context"
	"fmt"

	"github.com/warmup-sidecar/warmup-sidecar/pkg/prober"
)

// Once waits for the broker's /health 200 (until waitCtx ends), then runs one
// warmup bounded by the budget: the `once` subcommand for VMs and hooks.
func (s *Supervisor) Once(ctx, waitCtx context.Context) (prober.Report, error) {
	s.defaults()
	at, ok := s.waitHealthy(waitCtx, s.Opts.Enabled)
	if !ok {
		if ctx.Err() != nil {
			return prober.Report{}, ctx.Err()
		}
		return prober.Report{}, fmt.Errorf("broker /health never answered 200 while waiting")
	}
	if !s.Opts.Enabled {
		return prober.Report{Outcome: prober.OutcomeWarm}, nil
	}
	end := s.warmOnce(ctx, s.healthy(ctx, nil, at))
	if end.why != "" {
		return end.rep, end.rep.Err
	}
	return end.rep, ctx.Err()
}
