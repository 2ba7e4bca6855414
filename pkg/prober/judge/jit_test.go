package judge

import (
	"testing"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/pkg/prober/event"
)

// readings feeds cumulative compile times (ms) taken every 500 ms from t0.
func readings(j *jitTracker, t0 time.Time, totalsMs ...int) event.JITState {
	var s event.JITState
	for i, v := range totalsMs {
		s = j.add(t0.Add(time.Duration(i)*500*time.Millisecond), time.Duration(v)*time.Millisecond)
	}
	return s
}

func TestJITTracker(t *testing.T) {
	t0 := time.Unix(1_700_000_000, 0)
	cases := []struct {
		name   string
		totals []int // cumulative ms, one reading every 500 ms
		known  bool
		rate   float64
		peak   float64
		inARow int
		quiet  bool
	}{
		{name: "one reading has no rate", totals: []int{4000}},
		{
			// +400 ms per 500 ms = 0.8 s/s, then 0.06 s/s three times (7.5% of the peak).
			name: "falls under a tenth of its peak for three readings", totals: []int{1000, 1400, 1800, 1830, 1860, 1890},
			known: true, rate: 0.06, peak: 0.8, inARow: 3, quiet: true,
		},
		{
			name: "two quiet readings are not enough", totals: []int{1000, 1400, 1800, 1830, 1860},
			known: true, rate: 0.06, peak: 0.8, inARow: 2,
		},
		{
			// 0.2 s/s is a quarter of the peak: still compiling the serve path.
			name: "still compiling", totals: []int{1000, 1400, 1800, 1900, 2000, 2100, 2200},
			known: true, rate: 0.2, peak: 0.8, inARow: 0,
		},
		{
			name: "a burst restarts the quiet count", totals: []int{1000, 1400, 1410, 1420, 1600, 1610},
			known: true, rate: 0.02, peak: 0.8, inARow: 1,
		},
		{
			// Peak 0.04 s/s: a tenth is 0.004, but the floor (0.01) calls 0.008 quiet.
			name: "an idle JVM is quiet by the floor", totals: []int{1000, 1020, 1024, 1028, 1032},
			known: true, rate: 0.008, peak: 0.04, inARow: 3, quiet: true,
		},
		{
			// The counter fell: a restarted JVM; its first reading gives no rate yet.
			name: "a counter reset starts over", totals: []int{1000, 1400, 1410, 1420, 1430, 50},
			known: false, inARow: 0,
		},
		{
			name: "after a reset the new JVM's peak counts", totals: []int{1000, 5000, 50, 250, 450},
			known: true, rate: 0.4, peak: 0.4, inARow: 0,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			// A span of one reading: each rate runs from the reading before.
			s := readings(newJITTracker(JITRule{Span: 500 * time.Millisecond}), t0, tc.totals...)
			if s.Known != tc.known || s.QuietInARow != tc.inARow || s.Quiet != tc.quiet {
				t.Fatalf("state %+v, want known %v, %d quiet in a row, quiet %v", s, tc.known, tc.inARow, tc.quiet)
			}
			if !near(s.Rate, tc.rate) || !near(s.Peak, tc.peak) {
				t.Errorf("rate %.4f peak %.4f, want %.4f and %.4f", s.Rate, s.Peak, tc.rate, tc.peak)
			}
		})
	}
}

func TestJITTrackerIgnoresAReadingWithNoTimeBetween(t *testing.T) {
	j := newJITTracker(JITRule{Span: time.Second})
	at := time.Unix(100, 0)
	j.add(at, time.Second)
	s := j.add(at, 2*time.Second)
	if s.Known {
		t.Fatalf("a rate from zero elapsed time: %+v", s)
	}
	s = j.add(at.Add(time.Second), 3*time.Second)
	if !near(s.Rate, 2) {
		t.Fatalf("rate %.3f, want 2 (from the first reading, the same-instant one dropped)", s.Rate)
	}
}

// HotSpot adds a compilation's time when it completes: 1.5 s of compiling that
// lands every 1.5 s is 1 s/s, not a 3 s/s peak between two readings and 0
// between the others. The default span sees the rate, and the quiet that follows.
func TestJITTrackerRatesOverItsSpan(t *testing.T) {
	t0 := time.Unix(1_700_000_000, 0)
	j := newJITTracker(JITRule{})
	var totals []int
	for i := range 24 { // 12 s compiling in chunks, then idle
		totals = append(totals, 1500*((i+2)/3))
	}
	for range 10 {
		totals = append(totals, totals[len(totals)-1])
	}
	var s event.JITState
	for i, v := range totals {
		s = j.add(t0.Add(time.Duration(i)*500*time.Millisecond), time.Duration(v)*time.Millisecond)
		switch {
		case i < 8 && s.Known:
			t.Fatalf("reading %d (%.1f s in): a rate before the readings cover 4 s: %+v", i, float64(i)/2, s)
		case i == 8 && !s.Known:
			t.Fatalf("reading 8 (4 s in): no rate yet: %+v", s)
		case s.Peak > 1.2:
			t.Fatalf("reading %d: peak %.3f s/s; the chunks average 1 s/s", i, s.Peak)
		case i < 24+8 && s.Quiet:
			t.Fatalf("reading %d: quiet while the last 4 s held a chunk: %+v", i, s)
		}
	}
	if !s.Quiet || s.Rate != 0 || s.Peak < 1 {
		t.Errorf("after 5 s idle: %+v, want quiet at 0 s/s under a peak of ≥ 1 s/s", s)
	}
}

func near(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }

// The exported tracker is the run's arithmetic with the caller's rule: quiet after
// QuietReadings quiet rates, history restarted by a counter that goes back.
func TestJITTrackerForAReaderOfItsOwn(t *testing.T) {
	tr := NewJITTracker(JITRule{Span: 2 * time.Second, QuietReadings: 4})
	if r := tr.Rule(); r.QuietFraction != DefaultJITQuietFraction || r.QuietReadings != 4 {
		t.Fatalf("rule %+v", r)
	}
	t0 := time.Unix(100, 0)
	total := time.Duration(0)
	var s event.JITState
	for i := 0; i <= 4; i++ { // 1 s/s of compilation
		total += time.Second
		s = tr.Add(t0.Add(time.Duration(i)*time.Second), total)
	}
	if !s.Known || s.Quiet || s.Peak < 0.99 {
		t.Fatalf("compiling: %+v", s)
	}
	for i := 5; i < 9; i++ { // silent: over 2 s the first rate is still 0.5 s/s, then 0
		s = tr.Add(t0.Add(time.Duration(i)*time.Second), total)
	}
	if s.Quiet || s.QuietInARow != 3 {
		t.Fatalf("3 quiet readings of 4: %+v", s)
	}
	s = tr.Add(t0.Add(9*time.Second), total)
	if !s.Quiet {
		t.Fatalf("4 quiet readings: %+v", s)
	}
	s = tr.Add(t0.Add(10*time.Second), time.Second) // a new JVM
	if s.Known || s.Quiet || s.Peak != 0 {
		t.Errorf("after a restart: %+v", s)
	}
}
