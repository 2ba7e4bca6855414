package supervisor

import (
	"context"
	"errors"
	"fmt"
	"syscall"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/pkg/backoff"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/pinot"
)

// poll is what one /health check says about the broker.
type poll int

const (
	pollOK   poll = iota // 200
	pollBad              // refused, or a real non-200 answer: evidence it is going or gone
	pollSlow             // no answer in time (or cut): a loaded broker, not evidence of anything
)

// check asks /health once with a timeout and shares the answer with /readyz.
func (s *Supervisor) check(ctx context.Context) poll {
	cctx, cancel := context.WithTimeout(ctx, s.HealthTimeout)
	defer cancel()
	h, err := s.Broker.Health(cctx)
	if ctx.Err() == nil {
		s.Health.Store(healthVerdict(h, err))
	}
	switch {
	case err == nil && h.OK:
		return pollOK
	case err == nil, errors.Is(err, syscall.ECONNREFUSED):
		return pollBad
	default:
		return pollSlow
	}
}

// HealthCheck is the gate's check of the broker: ok on a /health 200, else the
// answer as the reason readiness is withheld.
func HealthCheck(health func(context.Context) (pinot.Health, error)) func(context.Context) (bool, string, error) {
	return func(ctx context.Context) (bool, string, error) { return healthVerdict(health(ctx)) }
}

func healthVerdict(h pinot.Health, err error) (ok bool, reason string, _ error) {
	if err != nil || h.OK {
		return h.OK, "", err
	}
	return false, fmt.Sprintf("broker /health answered HTTP %d: %s", h.Status, h.Body), nil
}

// waitHealthy polls /health with backoff until 200. False when ctx ended. With
// warmEarly, the broker-only queries of early.go are sent meanwhile, until a
// /health poll goes unanswered in time: they must never be what delays seeing
// the broker healthy (the budget starts there).
func (s *Supervisor) waitHealthy(ctx context.Context, warmEarly bool) bool {
	b := backoff.Doubling{Min: 100 * time.Millisecond, Max: s.WaitMax}
	var e *early
	if warmEarly {
		e = s.startEarly(ctx)
	}
	defer func() { e.stop() }()
	for {
		switch s.check(ctx) {
		case pollOK:
			return true
		case pollSlow:
			e.stop()
			e = nil
		}
		if !s.Sleep(ctx, b.Next()) {
			return false
		}
	}
}

// watch polls the broker until it goes away and says why: GoneAfter refused or
// non-200 polls in a row (a shutting-down broker says SHUTTING_DOWN first), or a
// changed /start-time. A slow /health neither counts nor clears the count: a
// broker busy with the warmup's own probes answers late, and is still there.
// "" when ctx ended.
func (s *Supervisor) watch(ctx context.Context, lt *lifetime) string {
	bad := 0
	for {
		if !s.Sleep(ctx, s.PollEvery) {
			return ""
		}
		switch s.check(ctx) {
		case pollOK:
			bad = 0
			if why := s.restarted(ctx, lt); why != "" {
				return why
			}
		case pollBad:
			if bad++; bad >= s.GoneAfter {
				return fmt.Sprintf("/health refused or not 200 on %d polls in a row", bad)
			}
		case pollSlow:
		}
		if ctx.Err() != nil {
			return ""
		}
	}
}
