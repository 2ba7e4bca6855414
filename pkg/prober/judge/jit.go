package judge

import (
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/pkg/prober/event"
)

// JITRule says when the broker's JIT compiler has gone quiet: the compile rate
// (seconds of compilation per second of wall time, over the last Span) stays at
// or below QuietFraction of its peak, or below QuietFloor, for QuietReadings
// readings in a row.
type JITRule struct {
	// Every is the time between readings.
	Every time.Duration
	// Span is how far back a rate looks. HotSpot adds a compilation's time to the
	// counter when it completes, so a few long compilations land at once: over
	// 500 ms the rate peaks far above what the compiler threads can do, and a
	// tenth of that peak is not quiet (figures: docs/design.md, "Measurement history",
	// "When is the broker warm?").
	Span time.Duration
	// Timeout caps one reading.
	Timeout       time.Duration
	QuietFraction float64
	// QuietFloor is a rate that always counts as quiet: a JVM compiling 10 ms
	// a second in the background is done with the serve path.
	QuietFloor    float64
	QuietReadings int
	// Failures is how many readings in a row may fail before the run gives the
	// signal up: a scrape is likeliest to time out while the cold JVM is
	// saturated, exactly when the signal matters, so one failure keeps the last
	// readings and the next tick reads again.
	Failures int
}

// Default JIT rule: readings every 500 ms, rates over 4 s, quiet at 10% of the
// peak for 3 readings in a row; given up after 6 failed readings in a row (3 s
// or more of failure at the default cadence).
const (
	DefaultJITEvery         = 500 * time.Millisecond
	DefaultJITSpan          = 4 * time.Second
	DefaultJITTimeout       = time.Second
	DefaultJITQuietFraction = 0.1
	DefaultJITQuietFloor    = 0.01
	DefaultJITQuietReadings = 3
	DefaultJITFailures      = 6
)

func (r JITRule) withDefaults() JITRule {
	r.Every = orDefault(r.Every, DefaultJITEvery)
	r.Span = orDefault(r.Span, DefaultJITSpan)
	r.Timeout = orDefault(r.Timeout, DefaultJITTimeout)
	r.QuietFraction = orDefault(r.QuietFraction, DefaultJITQuietFraction)
	r.QuietFloor = orDefault(r.QuietFloor, DefaultJITQuietFloor)
	r.QuietReadings = orDefault(r.QuietReadings, DefaultJITQuietReadings)
	r.Failures = orDefault(r.Failures, DefaultJITFailures)
	return r
}

// jitTracker turns cumulative readings into the quiet signal. Pure: the caller
// reads and supplies the wall-clock instant.
type jitTracker struct {
	rule JITRule
	// seen: the readings of the last Span and the one just before it (the base
	// of the next rate), oldest first.
	seen  []jitReading
	state event.JITState
}

type jitReading struct {
	at    time.Time
	total time.Duration
}

func newJITTracker(rule JITRule) *jitTracker {
	return &jitTracker{rule: rule.withDefaults()}
}

// add records one reading taken at. The rate runs from the newest reading at
// least Span old, so it is not known until the readings cover a Span.
func (j *jitTracker) add(at time.Time, total time.Duration) event.JITState {
	if n := len(j.seen); n > 0 {
		last := j.seen[n-1]
		switch {
		case total < last.total:
			// The counter went back: a new JVM. Its compile history starts over.
			j.state, j.seen = event.JITState{}, nil
		case !at.After(last.at):
			return j.state // no time passed: nothing to learn
		}
	}
	j.seen = append(j.seen, jitReading{at, total})
	base := -1
	for i, r := range j.seen {
		if at.Sub(r.at) >= j.rule.Span {
			base = i
		}
	}
	if base < 0 {
		return j.state
	}
	j.seen = j.seen[base:]
	b := j.seen[0]
	rate := (total - b.total).Seconds() / at.Sub(b.at).Seconds()
	s := &j.state
	s.Rate, s.Known = rate, true
	s.Peak = max(s.Peak, rate)
	if rate <= s.Peak*j.rule.QuietFraction || rate <= j.rule.QuietFloor {
		s.QuietInARow++
	} else {
		s.QuietInARow = 0
	}
	s.Quiet = s.QuietInARow >= j.rule.QuietReadings
	return j.state
}

// JITTracker is the JIT signal's arithmetic for a reader of its own: the compile rate over the
// rule's Span, its peak and the quiet readings in a row, from cumulative readings. The CPU
// boost's give-back (internal/cpuboost) keeps reading after the run ends, since the compiler
// keeps compiling after the gate opens. Pure: the caller reads and supplies the instant.
type JITTracker struct{ t *jitTracker }

// NewJITTracker tracks by rule (zero fields take the defaults).
func NewJITTracker(rule JITRule) *JITTracker { return &JITTracker{t: newJITTracker(rule)} }

// Add records a reading of the cumulative compile time taken at at; a counter that went back
// (a new JVM) starts the history over.
func (t *JITTracker) Add(at time.Time, total time.Duration) event.JITState { return t.t.add(at, total) }

// Rule is the rule, defaults filled in.
func (t *JITTracker) Rule() JITRule { return t.t.rule }
