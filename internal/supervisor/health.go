package supervisor

import (
	"context"
	"fmt"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/pkg/backoff"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/gatehttp"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/pinot"
)

// check asks /health once with a timeout and shares the answer with /readyz,
// which judges it the same way (gatehttp.JudgeHealth). It returns the verdict
// and the answer (zero without one).
func (s *Supervisor) check(ctx context.Context) (gatehttp.HealthVerdict, pinot.Health) {
	cctx, cancel := context.WithTimeout(ctx, s.HealthTimeout)
	defer cancel()
	h, err := s.Broker.Health(cctx)
	ok, reason, err := healthAnswer(h, err)
	if ctx.Err() == nil {
		s.Health.Store(ok, reason, err)
	}
	v, _ := gatehttp.JudgeHealth(ok, reason, err)
	return v, h
}

// HealthCheck is the gate's check of the broker: ok on a /health 200, else the
// answer as the reason readiness is withheld.
func HealthCheck(health func(context.Context) (pinot.Health, error)) func(context.Context) (bool, string, error) {
	return func(ctx context.Context) (bool, string, error) { return healthAnswer(health(ctx)) }
}

// healthAnswer is a /health answer as gatehttp judges it: ok, or the status
// and body as the reason.
func healthAnswer(h pinot.Health, err error) (ok bool, reason string, _ error) {
	if err != nil || h.OK {
		return h.OK, "", err
	}
	return false, fmt.Sprintf("broker /health answered HTTP %d: %s", h.Status, h.Body), nil
}

// waitHealthy polls /health with backoff until 200 and returns when that 200
// was seen (the budget's clock starts there). False when ctx ended. With
// warmEarly, the no-scatter queries of early.go are sent meanwhile: once a
// /health poll has answered, while it does not say the broker is shutting down,
// and until a poll goes unanswered in time: they must never be what delays
// seeing the broker healthy.
func (s *Supervisor) waitHealthy(ctx context.Context, warmEarly bool) (time.Time, bool) {
	b := backoff.Doubling{Min: 100 * time.Millisecond, Max: s.WaitMax}
	var e *early
	if warmEarly {
		e = s.startEarly(ctx)
	}
	defer func() { e.stop() }()
	for {
		v, h := s.check(ctx)
		switch v {
		case gatehttp.Healthy:
			return s.Now(), true
		case gatehttp.Slow:
			e.stop()
			e = nil
		case gatehttp.Down:
			e.heard(h)
		}
		if !s.Sleep(ctx, b.Next()) {
			return time.Time{}, false
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
		switch v, _ := s.check(ctx); v {
		case gatehttp.Healthy:
			bad = 0
			if why := s.restarted(ctx, lt); why != "" {
				return why
			}
		case gatehttp.Down:
			if bad++; bad >= s.GoneAfter {
				return fmt.Sprintf("/health refused or not 200 on %d polls in a row", bad)
			}
		case gatehttp.Slow:
		}
		if ctx.Err() != nil {
			return ""
		}
	}
}
