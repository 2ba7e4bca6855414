package cpuboost

import (
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/pkg/backoff"
)

// retries paces a call that fails on an error worth retrying (no answer, 401, 409, 429, 5xx):
// a doubling wait for the first MaxAttempts failures in a row, SlowRetry after, for good. An
// answer, or a refusal (which has its own pace, SlowRetry), starts the count again.
type retries struct {
	fast   backoff.Doubling
	slow   time.Duration
	max    int
	inARow int
}

func (s Settings) retries() retries {
	return retries{fast: s.Retry, slow: s.SlowRetry, max: s.MaxAttempts}
}

// failed counts one failure and says the wait before the next call; slow once MaxAttempts
// failed in a row.
func (p *retries) failed() (wait time.Duration, slow bool) {
	p.inARow++
	if p.inARow >= p.max {
		return p.slow, true
	}
	return p.fast.Next(), false
}

// reset starts the count again.
func (p *retries) reset() {
	p.inARow = 0
	p.fast.Reset()
}
