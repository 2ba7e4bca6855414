package judge

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/pkg/prober/event"
)

var errScrapeTimeout = errors.New("reading JVM metrics from http://127.0.0.1:8008/metrics: context deadline exceeded")

// The state a failing read leaves: the last readings, and the streak.
func TestJITSignalKeepsTheLastReadingsThroughFailures(t *testing.T) {
	w := newJITSignal(JITRule{Span: time.Millisecond})
	t0 := time.Unix(100, 0)
	w.add(t0, time.Second)
	w.add(t0.Add(time.Second), 3*time.Second) // 2 s/s: compiling
	for i := 1; i < DefaultJITFailures; i++ {
		if n, gaveUp := w.failed(errScrapeTimeout); n != i || gaveUp {
			t.Fatalf("failure %d: streak %d, gave up %v", i, n, gaveUp)
		}
	}
	if w.quietOrIgnored() {
		t.Error("a failing source let a compiling JIT pass as quiet")
	}
	if d := w.describe(); !strings.Contains(d, "JIT still compiling (2.000 s/s") || !strings.Contains(d, "5 failed readings since") {
		t.Errorf("describe %q", d)
	}
	w.add(t0.Add(2*time.Second), 3*time.Second)
	if n, _ := w.failed(errScrapeTimeout); n != 1 {
		t.Errorf("a good reading did not end the streak: %d", n)
	}
	for range DefaultJITFailures - 1 {
		w.failed(errScrapeTimeout)
	}
	if !w.quietOrIgnored() || !strings.Contains(w.describe(), "JIT signal ignored") {
		t.Errorf("after %d failures in a row: %q", DefaultJITFailures, w.describe())
	}
}

// Readings fed to a judge that watches no JIT change nothing: the signal
// holds no exit it was not asked to judge.
func TestJITReadingsWithoutWatchJITAreIgnored(t *testing.T) {
	j := New(Rules{Exit: ExitConverged, Floor: 1})
	plan, sqls := planned([]string{"agg"}, nil)
	j.Observe(plan, t0)
	for i := range 40 {
		j.Observe(probed(sqls["agg"], 3*ms, true), t0.Add(time.Duration(i)*ms))
	}
	read := jitRead(1000)
	if out := j.Observe(read, t0.Add(time.Second)); len(out) != 1 || out[0].Kind != event.KindJITRead || out[0].JIT != (event.JITState{}) {
		t.Errorf("reading without WatchJIT: %+v, want it back with no state", out)
	}
	failed := event.Event{Kind: event.KindJITReadFailed, Err: errScrapeTimeout}
	if out := j.Observe(failed, t0.Add(time.Second)); len(out) != 1 || out[0].Kind != event.KindJITReadFailed || out[0].InARow != 0 {
		t.Errorf("failure without WatchJIT: %+v, want it back with no streak", out)
	}
	if v := j.Verdict(); !v.Warm || v.Reason != "floor of 1 successful probes reached; latency flat on agg" {
		t.Errorf("verdict %+v", v)
	}
}
