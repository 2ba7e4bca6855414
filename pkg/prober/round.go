package prober

import "context"

// roundResult is what the pacing decisions need from one round.
type roundResult struct {
	anyOK bool
}

// settle backs off after a round with no success (everything refused: 401,
// broker down), so such a broker is not hammered for the whole budget.
func (r *run) settle(ctx context.Context, res roundResult, fail *backoff) {
	if res.anyOK {
		fail.reset()
	} else {
		fail.sleep(ctx) // a deadline during the sleep is reported by check()
	}
}
