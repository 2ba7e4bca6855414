package gatehttp

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/pkg/pinot"
)

// BrokerHealth answers "is the broker's /health 200?" from a value at most MaxAge
// old, checking live (with Timeout) when the value is older. Readiness checks at
// thousands per second therefore cost the broker at most one /health a second.
type BrokerHealth struct {
	Check   func(ctx context.Context) (pinot.Health, error)
	MaxAge  time.Duration
	Timeout time.Duration
	Now     func() time.Time

	mu     sync.Mutex
	at     time.Time
	ok     bool
	reason string
}

// Get returns whether the broker is healthy and, if not, why.
func (h *BrokerHealth) Get(ctx context.Context) (bool, string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.at.IsZero() && h.Now().Sub(h.at) < h.MaxAge {
		return h.ok, h.reason
	}
	cctx, cancel := context.WithTimeout(ctx, h.Timeout)
	defer cancel()
	hl, err := h.Check(cctx)
	h.store(hl, err)
	return h.ok, h.reason
}

// Store records a check made elsewhere (the supervisor's watch loop).
func (h *BrokerHealth) Store(hl pinot.Health, err error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.store(hl, err)
}

func (h *BrokerHealth) store(hl pinot.Health, err error) {
	h.at = h.Now()
	switch {
	case err != nil:
		h.ok, h.reason = false, "broker unreachable: "+err.Error()
	case !hl.OK:
		h.ok, h.reason = false, fmt.Sprintf("broker /health answered HTTP %d: %s", hl.Status, hl.Body)
	default:
		h.ok, h.reason = true, ""
	}
}
