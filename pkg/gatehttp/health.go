package gatehttp

import (
	"context"
	"errors"
	"sync"
	"time"

	"golang.org/x/sync/singleflight"
)

// BrokerHealth answers "is the broker's /health 200?" from a value at most MaxAge
// old, checking live (with Timeout) when the value is older. Readiness checks at
// thousands per second therefore cost the broker at most one /health a second.
//
// A check with no answer in time (Slow: a busy broker, e.g. one throttled at its
// CPU limit under load) is not evidence the broker went away: while the last
// answer was 200 and is at most SlowGrace old it is still the answer. A broker
// that hangs longer is not ready; one that refuses or answers non-200 is not
// ready at once. Without it a serving broker whose /health is slower than
// Timeout for a few probes leaves its Service, where its own probe (the
// official chart's: 10 s timeout, 10 failures) would keep it.
//
// Callers arriving while a check is in flight share it. The check is bound by
// Timeout, not by any caller's context: a caller that gives up leaves at once and
// cannot cut or spoil the answer the others wait for. A context error (a check
// that ran out of time) is returned to the callers of that check, never cached.
type BrokerHealth struct {
	// Check asks the broker once: ok, or in one line why not; err when it could
	// not be asked at all.
	Check   func(ctx context.Context) (ok bool, reason string, err error)
	MaxAge  time.Duration
	Timeout time.Duration
	// SlowGrace: how old a 200 may be and still answer for a check that got no
	// answer in time (0: not at all).
	SlowGrace time.Duration
	Now       func() time.Time

	flight singleflight.Group

	mu   sync.Mutex
	at   time.Time
	last verdict
}

// verdict is one judged /health answer.
type verdict struct {
	ok     bool
	reason string
}

// Get returns whether the broker is healthy and, if not, why.
func (h *BrokerHealth) Get(ctx context.Context) (bool, string) {
	if v, fresh := h.cached(); fresh {
		return v.ok, v.reason
	}
	// The shared check's goroutine lives at most Timeout.
	ch := h.flight.DoChan("health", func() (any, error) {
		// A caller that found the cache stale just as another flight stored a
		// fresh answer starts a flight of its own: the answer is here already.
		if v, fresh := h.cached(); fresh {
			return v, nil
		}
		return h.checkNow(), nil
	})
	select {
	case r := <-ch:
		v := r.Val.(verdict)
		return v.ok, v.reason
	case <-ctx.Done():
		return false, "readiness request ended before the broker's /health answered: " + ctx.Err().Error()
	}
}

func (h *BrokerHealth) cached() (verdict, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.last, !h.at.IsZero() && h.Now().Sub(h.at) < h.MaxAge
}

func (h *BrokerHealth) checkNow() verdict {
	ctx, cancel := context.WithTimeout(context.Background(), h.Timeout)
	defer cancel()
	return h.store(h.Check(ctx))
}

// Store records a check made elsewhere (the supervisor's watch loop).
func (h *BrokerHealth) Store(ok bool, reason string, err error) { h.store(ok, reason, err) }

// store judges an answer and caches it unless it is a context error. A slow
// check is answered by a 200 at most SlowGrace old and never cached, so the
// grace runs from the last real 200.
func (h *BrokerHealth) store(ok bool, reason string, err error) verdict {
	v, why := JudgeHealth(ok, reason, err)
	h.mu.Lock()
	defer h.mu.Unlock()
	if v == Slow && h.last.ok && !h.at.IsZero() && h.Now().Sub(h.at) <= h.SlowGrace {
		return h.last
	}
	judged := verdict{v == Healthy, why}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return judged
	}
	h.at, h.last = h.Now(), judged
	return judged
}
