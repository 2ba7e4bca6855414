package cpuboost

import (
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/pkg/backoff"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/kubeapi"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/prober/judge"
)

// Settings say what to give back and when.
type Settings struct {
	// Container is the broker container's name; Target its CPU to give back to (an empty
	// field is not resized: the broker has none to return to).
	Container string
	Target    kubeapi.CPU
	// MaxDuration ends the boost regardless of the evidence, counted from the pod's start.
	MaxDuration time.Duration
	// Settle is how long after the gate opened the CPU is given back at the latest; a quiet
	// JIT compiler gives it back sooner; with no JIT signal (none configured, or its last
	// JIT.Failures readings failed) it is given back then. 0: when the gate opens.
	Settle time.Duration
	// JIT is when the compiler counts as quiet; zero fields: DefaultJIT's.
	JIT judge.JITRule
	// NoJITNote says why there is no JIT source at all, for the reason of a settle give-back
	// (the binary: "WARMUP_JVM_METRICS_URL is empty").
	NoJITNote string

	// Timing; zero values take the defaults below.
	Tick        time.Duration // between evidence checks (JIT.Every)
	CallTimeout time.Duration // per API call (5s)
	// Retry is the wait between calls that fail on an error worth retrying (no answer, 401,
	// 409, 429, 5xx: 1s doubling to 1m), for MaxAttempts failures in a row (10: about 4
	// minutes of waits); then SlowRetry.
	Retry       backoff.Doubling
	MaxAttempts int
	// SlowRetry is the pace once a failure is reported (2m): after MaxAttempts, at once after
	// a refusal (403, 404, 422), an Infeasible resize, or a pod the target does not fit. One
	// call each time, for as long as the pod is boosted: the give-back never stops.
	SlowRetry time.Duration
	// Confirm is the wait between reads of the pod while the kubelet applies the resize
	// (2s doubling to 30s).
	Confirm backoff.Doubling
}

// DefaultJIT is the give-back's quiet rule: a reading a second, each a compile rate over 4 s,
// quiet at 10% of its peak (or 10 ms/s) for 10 readings in a row. Stricter than a run's 3
// readings of 500 ms: the compiler works in bursts for minutes after the gate opens, and a
// give-back that comes a burst too early costs the rest of them.
var DefaultJIT = judge.JITRule{Every: time.Second, Span: 4 * time.Second, QuietReadings: 10, Failures: 6}

func (s Settings) withDefaults() Settings {
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	if s.JIT.Every == 0 {
		s.JIT.Every = DefaultJIT.Every
	}
	if s.JIT.Span == 0 {
		s.JIT.Span = DefaultJIT.Span
	}
	if s.JIT.QuietReadings == 0 {
		s.JIT.QuietReadings = DefaultJIT.QuietReadings
	}
	if s.JIT.Failures == 0 {
		s.JIT.Failures = DefaultJIT.Failures
	}
	s.JIT = judge.NewJITTracker(s.JIT).Rule()
	if s.NoJITNote == "" {
		s.NoJITNote = "no JIT compile-time source is configured"
	}
	def(&s.Tick, s.JIT.Every)
	def(&s.CallTimeout, 5*time.Second)
	if s.Retry.Min <= 0 || s.Retry.Max <= 0 {
		s.Retry = backoff.Doubling{Min: time.Second, Max: time.Minute}
	}
	if s.MaxAttempts <= 0 {
		s.MaxAttempts = 10
	}
	// The doubling's next step after its 1m ceiling, kept: a failure reported, the pod holds the
	// boost at most 2 minutes past its cure (a Role fixed, an API server back), for one call per
	// pod per 2 minutes.
	def(&s.SlowRetry, 2*time.Minute)
	if s.Confirm.Min <= 0 || s.Confirm.Max <= 0 {
		s.Confirm = backoff.Doubling{Min: 2 * time.Second, Max: 30 * time.Second}
	}
	return s
}
