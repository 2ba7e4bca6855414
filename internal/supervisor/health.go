package supervisor

import (
	"context"
	"errors"
	"syscall"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/pkg/backoff"
)

// check asks /health once with a timeout and shares the answer with /readyz.
// refused means nothing listens on the broker's port any more (its process is
// gone); a slow or stalled answer (a GC pause) is only a bad poll.
func (s *Supervisor) check(ctx context.Context) (ok, refused bool) {
	cctx, cancel := context.WithTimeout(ctx, s.HealthTimeout)
	defer cancel()
	h, err := s.Broker.Health(cctx)
	if ctx.Err() == nil {
		s.Health.Store(h, err)
	}
	return err == nil && h.OK, errors.Is(err, syscall.ECONNREFUSED)
}

// waitHealthy polls /health with backoff until 200. False when ctx ended.
func (s *Supervisor) waitHealthy(ctx context.Context) bool {
	b := backoff.Doubling{Min: 100 * time.Millisecond, Max: s.WaitMax}
	for {
		if ok, _ := s.check(ctx); ok {
			return true
		}
		if !s.Sleep(ctx, b.Next()) {
			return false
		}
	}
}

// watch polls /health until the broker goes away (connection refused, or GoneAfter
// failed polls in a row — non-200 or no answer in time: a shutting-down broker
// says SHUTTING_DOWN first).
// False when ctx ended.
func (s *Supervisor) watch(ctx context.Context) bool {
	bad := 0
	for {
		if !s.Sleep(ctx, s.PollEvery) {
			return false
		}
		ok, refused := s.check(ctx)
		switch {
		case ok:
			bad = 0
		case refused:
			return true
		default:
			if bad++; bad >= s.GoneAfter {
				return true
			}
		}
	}
}
