// Package backoff is the sidecar's one way to wait: a sleep that ends with its
// context, and a wait that doubles between bounds.
package backoff

import (
	"context"
	"time"
)

// Sleep waits d, or until ctx ends; false when ctx ended first. d ≤ 0 does not
// wait.
func Sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// Doubling is a wait that starts at Min and doubles up to Max. The zero value of
// its state starts at Min; Reset goes back there.
type Doubling struct {
	Min, Max time.Duration
	cur      time.Duration
}

// Next advances and returns the next wait: Min, then twice the last, never above
// Max.
func (b *Doubling) Next() time.Duration {
	switch {
	case b.cur == 0:
		b.cur = min(b.Min, b.Max)
	case b.cur > b.Max/2: // doubling would pass Max (or overflow)
		b.cur = b.Max
	default:
		b.cur *= 2
	}
	return b.cur
}

// Reset makes the next wait Min again.
func (b *Doubling) Reset() { b.cur = 0 }

// Sleep waits Next() within ctx; false when ctx ended first.
func (b *Doubling) Sleep(ctx context.Context) bool { return Sleep(ctx, b.Next()) }
