package prober

import (
	"context"
	"time"
)

// CompileTimeSource reads the broker JVM's cumulative JIT compilation time (the
// JMX CompilationMXBean's TotalCompilationTime, as a metrics agent exports it).
type CompileTimeSource interface {
	CompileTime(ctx context.Context) (time.Duration, error)
}

// JITRule says when the broker's JIT compiler has gone quiet: the compile rate
// (seconds of compilation per second of wall time, between two readings) stays at
// or below QuietFraction of its peak, or below QuietFloor, for QuietReadings
// readings in a row.
type JITRule struct {
	// Every is the time between readings.
	Every time.Duration
	// Timeout caps one reading.
	Timeout       time.Duration
	QuietFraction float64
	// QuietFloor is a rate that always counts as quiet: a JVM compiling 10 ms
	// a second in the background is done with the serve path.
	QuietFloor    float64
	QuietReadings int
}

// Default JIT rule: readings every 500 ms, quiet at 10% of the peak for 1.5 s.
const (
	DefaultJITEvery         = 500 * time.Millisecond
	DefaultJITTimeout       = time.Second
	DefaultJITQuietFraction = 0.1
	DefaultJITQuietFloor    = 0.01
	DefaultJITQuietReadings = 3
)

func (r JITRule) withDefaults() JITRule {
	r.Every = orDefault(r.Every, DefaultJITEvery)
	r.Timeout = orDefault(r.Timeout, DefaultJITTimeout)
	r.QuietFraction = orDefault(r.QuietFraction, DefaultJITQuietFraction)
	r.QuietFloor = orDefault(r.QuietFloor, DefaultJITQuietFloor)
	r.QuietReadings = orDefault(r.QuietReadings, DefaultJITQuietReadings)
	return r
}

// JITState is the JIT signal after a reading.
type JITState struct {
	// Rate and Peak are seconds of compilation per second; Known is false until
	// two readings give a rate.
	Rate, Peak  float64
	Known       bool
	QuietInARow int
	Quiet       bool
}

// jitTracker turns cumulative readings into the quiet signal. Pure: the caller
// reads and supplies the wall-clock instant.
type jitTracker struct {
	rule  JITRule
	last  time.Time
	total time.Duration
	seen  bool
	state JITState
}

func newJITTracker(rule JITRule) *jitTracker {
	return &jitTracker{rule: rule.withDefaults()}
}

// add records one reading taken at.
func (j *jitTracker) add(at time.Time, total time.Duration) JITState {
	switch {
	case !j.seen:
	case total < j.total:
		// The counter went back: a new JVM. Its compile history starts over.
		j.state = JITState{}
	case at.After(j.last):
		rate := (total - j.total).Seconds() / at.Sub(j.last).Seconds()
		s := &j.state
		s.Rate, s.Known = rate, true
		s.Peak = max(s.Peak, rate)
		if rate <= s.Peak*j.rule.QuietFraction || rate <= j.rule.QuietFloor {
			s.QuietInARow++
		} else {
			s.QuietInARow = 0
		}
		s.Quiet = s.QuietInARow >= j.rule.QuietReadings
	default:
		return j.state // no time passed: nothing to learn
	}
	j.seen, j.last, j.total = true, at, total
	return j.state
}
