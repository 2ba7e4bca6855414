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
	Now     func() time.Time

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

// store judges an answer and caches it unless it is a context error.
func (h *BrokerHealth) store(ok bool, reason string, err error) verdict {
	v := judge(ok, reason, err)
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return v
	}
	h.mu.Lock()
	h.at, h.last = h.Now(), v
	h.mu.Unlock()
	return v
}

func judge(ok bool, reason string, err error) verdict {
	v, why := JudgeHealth(ok, reason, err)
	return verdict{v == Healthy, why}
}
