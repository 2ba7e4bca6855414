package gatehttp

import (
	"context"
	"errors"
	"syscall"
)

// HealthVerdict is what one /health check says of the broker. The supervisor's
// watch and /readyz judge a check the same way; only Healthy is ready.
type HealthVerdict int

const (
	// Healthy: /health answered 200.
	Healthy HealthVerdict = iota
	// Down: the connection was refused, or /health answered something else than
	// 200 — evidence the broker is going or gone.
	Down
	// Slow: no answer in time (or none at all, for another reason than a
	// refusal) — a broker busy with the warmup's own probes answers late and
	// is still there, so this is evidence of nothing, and not ready either.
	Slow
)

// JudgeHealth judges one check: ok and reason as the broker answered, err when
// it could not be asked. It returns the verdict and, unless healthy, the
// reason readiness is withheld.
func JudgeHealth(ok bool, reason string, err error) (HealthVerdict, string) {
	switch {
	case err == nil && ok:
		return Healthy, ""
	case err == nil:
		return Down, reason
	case errors.Is(err, syscall.ECONNREFUSED):
		return Down, "broker unreachable: " + err.Error()
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, context.Canceled):
		return Slow, "broker /health did not answer in time: " + err.Error()
	default:
		return Slow, "broker unreachable: " + err.Error()
	}
}
