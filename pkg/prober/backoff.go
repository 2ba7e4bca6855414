package prober

import (
	"context"
	"time"
)

// backoff doubles a wait from min to max. Failing rounds sleep so a broker that
// rejects every probe at once (401, 429) is not hammered for the whole budget.
type backoff struct {
	min, max, cur time.Duration
}

func (b *backoff) reset() { b.cur = 0 }

// sleep waits the next interval; false when ctx ended first.
func (b *backoff) sleep(ctx context.Context) bool {
	switch {
	case b.cur == 0:
		b.cur = b.min
	case b.cur < b.max:
		b.cur = min(b.cur*2, b.max)
	}
	return sleepCtx(ctx, b.cur)
}
