package prober

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/pkg/prober/judge"
)

// flakySource is a JVM compiling while busy says so, whose reads fail where
// fails says so (a scrape timing out while the cold JVM is saturated).
type flakySource struct {
	reads atomic.Int64
	busy  func(read int64) bool
	fails func(read int64) bool
	total atomic.Int64
}

var errScrapeTimeout = errors.New("reading JVM metrics from http://127.0.0.1:8008/metrics: context deadline exceeded")

func (c *flakySource) CompileTime(context.Context) (time.Duration, error) {
	n := c.reads.Add(1)
	if c.fails(n) {
		return 0, errScrapeTimeout
	}
	if c.busy(n) {
		c.total.Add(int64(50 * ms))
	}
	return time.Duration(c.total.Load()), nil
}

// A read that fails now and then does not turn the JIT signal off: the last
// readings stand, the next tick reads again, and the exit still waits for the
// compiler to go quiet.
func TestFailedJITReadsKeepTheSignal(t *testing.T) {
	src := &flakySource{
		busy:  func(n int64) bool { return n <= 200 },
		fails: func(n int64) bool { return n%10 == 3 || n%10 == 4 }, // two in a row, every ten
	}
	p, _, _, rec := cluster(t, Settings{MinIterations: 1, Exit: judge.ExitConverged, Tables: []string{"orders"},
		JIT: judge.JITRule{Every: time.Millisecond, Span: time.Millisecond}})
	p.Compile = src
	rep := p.Run(context.Background(), time.Now().Add(15*time.Second))
	if rep.Outcome != OutcomeWarm || !strings.Contains(rep.Reason, "; JIT compile rate ") {
		t.Fatalf("outcome %s reason %q, want warm with the JIT quiet", rep.Outcome, rep.Reason)
	}
	if n := src.reads.Load(); n < 200+3 {
		t.Errorf("warm after %d readings, before the JIT went quiet (203): the signal was dropped", n)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.jitErrs) != 0 {
		t.Errorf("signal given up: %v", rec.jitErrs)
	}
	if len(rec.jitFails) < 2 || rec.jitFails[0] != 1 || rec.jitFails[1] != 2 {
		t.Errorf("failed reads heard %v, want each with its count in a row (1, 2, ...)", rec.jitFails)
	}
}

// Reads that keep failing give the signal up after judge.DefaultJITFailures in a row,
// once, and say so; the run is then judged without it.
func TestSustainedJITFailureGivesTheSignalUp(t *testing.T) {
	src := &flakySource{busy: func(int64) bool { return true }, fails: func(n int64) bool { return n > 5 }}
	p, _, _, rec := cluster(t, Settings{MinIterations: 1, Exit: judge.ExitConverged, Tables: []string{"orders"},
		JIT: judge.JITRule{Every: time.Millisecond, Span: time.Millisecond}})
	p.Compile = src
	rep := p.Run(context.Background(), time.Now().Add(15*time.Second))
	if rep.Outcome != OutcomeWarm || !strings.Contains(rep.Reason, "JIT signal ignored") {
		t.Fatalf("outcome %s reason %q, want warm with the JIT ignored", rep.Outcome, rep.Reason)
	}
	if n := src.reads.Load(); n != 5+judge.DefaultJITFailures {
		t.Errorf("source read %d times, want 5 good and %d failed, then no more", n, judge.DefaultJITFailures)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.jitErrs) != 1 || !strings.Contains(rec.jitErrs[0].Error(), "6 readings in a row failed") ||
		!errors.Is(rec.jitErrs[0], errScrapeTimeout) {
		t.Errorf("gave up with %v, want once, naming the streak and the last error", rec.jitErrs)
	}
}
