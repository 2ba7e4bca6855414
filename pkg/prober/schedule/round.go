package schedule

import (
	"context"

	"github.com/warmup-sidecar/warmup-sidecar/pkg/backoff"
)

// roundResult is what the pacing decisions need from one round.
type roundResult struct {
	anyOK bool
}

// settle backs off after a round with no success (everything refused: 401,
// broker down), so such a broker is not hammered for the whole budget.
func (r *Schedule) settle(ctx context.Context, res roundResult, fail *backoff.Doubling) {
	if res.anyOK {
		fail.Reset()
	} else {
		fail.Sleep(ctx) // a deadline during the sleep is reported by check()
	}
}
