package rollout

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/e2e/coldstart"
)

// SteadyQuiet is how long the fleet must have served the load without losing a query before an
// event's steady window begins: a fleet the previous event left overloaded (every pod new, its
// JIT still compiling) otherwise gives the next event a baseline of timeouts, and its losses
// are the previous arm's.
const SteadyQuiet = 10 * time.Second

// lossClock follows a running load: when its latest lost query (failed or cancelled) completed.
// Observe is called from the load's query goroutines.
type lossClock struct {
	mu       sync.Mutex
	lastLoss time.Time // the load's start until a query is lost
	now      func() time.Time
}

func newLossClock(now func() time.Time) *lossClock {
	return &lossClock{lastLoss: now(), now: now}
}

func (c *lossClock) Observe(r coldstart.Record) {
	if r.Outcome == coldstart.OutcomeOK {
		return
	}
	c.lost(c.now())
}

// lost keeps the latest loss: query goroutines read the clock and report out of order.
func (c *lossClock) lost(at time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if at.After(c.lastLoss) {
		c.lastLoss = at
	}
}

// quietFor is how long the load has gone without a lost query.
func (c *lossClock) quietFor() time.Duration {
	now := c.now()
	c.mu.Lock()
	defer c.mu.Unlock()
	return max(0, now.Sub(c.lastLoss))
}

// settlement is how an event's steady window was reached: after how much load, and whether the
// fleet had served it for SteadyQuiet without a loss by then.
type settlement struct {
	Waited  time.Duration
	Quiet   time.Duration // since the latest loss, then
	Settled bool
}

// unsettled says why the steady window began on a fleet still losing queries ("" if it had
// settled): the record's and the log's words.
func (s settlement) unsettled() string {
	if s.Settled {
		return ""
	}
	return fmt.Sprintf("the fleet still lost queries %.0f s into the load (the last %.1f s before the steady window began)",
		s.Waited.Seconds(), s.Quiet.Seconds())
}

// waitSettled returns once at least warm has passed and the load has gone quiet for SteadyQuiet,
// or once most has passed (then not settled: the event is measured on the fleet as it is, and
// its record says so). It checks every tick.
func waitSettled(ctx context.Context, c *lossClock, warm, most, tick time.Duration) (settlement, error) {
	begin := c.now()
	t := time.NewTicker(tick)
	defer t.Stop()
	for {
		waited, quiet := c.now().Sub(begin), c.quietFor()
		if waited >= warm && quiet >= SteadyQuiet {
			return settlement{Waited: waited, Quiet: quiet, Settled: true}, nil
		}
		if waited >= most {
			return settlement{Waited: waited, Quiet: quiet}, nil
		}
		select {
		case <-ctx.Done():
			return settlement{Waited: waited, Quiet: quiet}, fmt.Errorf("waiting for the fleet to serve the load without loss: %w", ctx.Err())
		case <-t.C:
		}
	}
}
