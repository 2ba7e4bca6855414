package schedule

import (
	"context"
	"sync"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/pkg/backoff"
)

// pause holds a lane's workers after a round's worth of its probes failed in a
// row with no success between them (everything refused: 401, a quota, the
// broker down; or one engine refusing while the other answers). While paused,
// one worker at a time tries again after a wait that doubles with each failure;
// its success ends the pause. One worker backing off alone would leave the
// others to hammer; all of them waking together would send a burst.
type pause struct {
	mu      sync.Mutex
	b       backoff.Doubling
	need    int // failures in a row that start a pause: a round's worth of the lane's workers
	streak  int
	paused  bool
	until   time.Time
	testing bool // a worker is trying again
}

func newPause(workers int) *pause {
	return &pause{b: backoff.Doubling{Min: 20 * time.Millisecond, Max: time.Second}, need: max(workers, 1)}
}

// holding: a worker picking a query now would only wait (paused, and the wait
// not over or another worker already trying again).
func (p *pause) holding(now time.Time) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.paused && (now.Before(p.until) || p.testing)
}

// pollPaused is how often a held worker looks whether the pause is over.
const pollPaused = 5 * time.Millisecond

// wait returns when the worker may send: at once when not paused, else as the
// one worker that tries again (tester). ok is false when ctx ends first.
func (p *pause) wait(ctx context.Context, now func() time.Time) (tester, ok bool) {
	for {
		p.mu.Lock()
		var d time.Duration
		switch t := now(); {
		case !p.paused:
			p.mu.Unlock()
			return false, ctx.Err() == nil
		case t.Before(p.until):
			d = p.until.Sub(t)
		case !p.testing:
			p.testing = true
			p.mu.Unlock()
			return true, ctx.Err() == nil
		default:
			d = pollPaused
		}
		p.mu.Unlock()
		if !backoff.Sleep(ctx, min(d, pollPaused)) {
			return false, false
		}
	}
}

// failed: a probe failed. need failures in a row start a pause (one failure
// among successes is a bad probe, not a refusing broker), and so does a quota
// refusal at once (its limiter must refill; the pacer learns the rate); inside
// a pause only the tester's failure lengthens it (the others were sent before
// it began).
// A failure that took longer than the longest wait starts no pause: it cannot
// hammer (the pause would hold it for less than it took), and holding a slow,
// cold engine to one probe at a time would only slow its warmup.
func (p *pause) failed(now time.Time, tester, refused bool, took time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.paused && !refused && took >= p.b.Max {
		return
	}
	p.streak++
	if p.paused && !tester || !p.paused && p.streak < p.need && !refused {
		return
	}
	p.paused, p.testing, p.until = true, false, now.Add(p.b.Next())
}

// forgive: the probe's answer says nothing of the broker (its query was
// dropped). A tester's turn ends without lengthening the pause.
func (p *pause) forgive(tester bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if tester {
		p.testing = false
	}
}

func (p *pause) succeeded() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.b.Reset()
	p.streak, p.paused, p.testing = 0, false, false
}
