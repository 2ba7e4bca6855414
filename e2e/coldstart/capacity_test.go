package coldstart

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// twoCores serves each query in 10 ms on one of two "cores": a capacity of ~200 QPS.
func twoCores() SendFunc {
	cores := make(chan struct{}, 2)
	return func(ctx context.Context, q Query) Answer {
		select {
		case cores <- struct{}{}:
		case <-ctx.Done():
			return Answer{TimeUsedMs: -1, Err: "client timeout"}
		}
		defer func() { <-cores }()
		select {
		case <-time.After(10 * time.Millisecond):
			return Answer{OK: true, TimeUsedMs: 10}
		case <-ctx.Done():
			return Answer{TimeUsedMs: -1, Err: "client timeout"}
		}
	}
}

func TestCalibrateFindsCapacityAndTheHighestComfortableRate(t *testing.T) {
	cfg := CalibrateConfig{Levels: []int{1, 4, 8}, Step: 300 * time.Millisecond, Fractions: []float64{0.5, 0.7}, WarmP99LimitMs: 1000}
	c, err := Calibrate(t.Context(), cfg, testMix, twoCores(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.Capacity.QPS < 100 || c.Capacity.QPS > 210 {
		t.Errorf("capacity %.0f QPS, want ≤ 200 (two 10 ms cores) and not far below", c.Capacity.QPS)
	}
	if one := c.Steps[0]; one.QPS > 101 {
		t.Errorf("1 closed-loop client did %.0f QPS: more than one 10 ms query at a time", one.QPS)
	}
	if len(c.OpenLoop) != 2 || !c.OpenLoop[1].Passed || c.Fraction != 0.7 || c.Rate != RateFor(c.Capacity.QPS, 0.7) {
		t.Errorf("open loop %+v: want both fractions passing and the rate at 70%%, got %.0f (%.0f%%)", c.OpenLoop, c.Rate, 100*c.Fraction)
	}
	if c.Check.Queries == 0 || !strings.Contains(c.Note(), "70% of the warm broker's closed-loop capacity") {
		t.Errorf("check %+v, note %q", c.Check, c.Note())
	}
}

// --rate-fractions 0.7,0.6,0.5 (as the 2026-12-01 dashboard and api studies passed it) caps the search
// at 70 %: tried lowest first, the rate is the highest share that passed.
func TestCalibrateTriesFractionsLowestFirstWhateverTheirOrder(t *testing.T) {
	cfg := CalibrateConfig{Levels: []int{1, 4, 8}, Step: 300 * time.Millisecond, Fractions: []float64{0.7, 0.6, 0.5}, WarmP99LimitMs: 1000}
	c, err := Calibrate(t.Context(), cfg, testMix, twoCores(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var tried []float64
	for _, s := range c.OpenLoop {
		tried = append(tried, s.Fraction)
	}
	if !slices.Equal(tried, []float64{0.5, 0.6, 0.7}) {
		t.Errorf("fractions tried %v, want lowest first", tried)
	}
	if c.Fraction != 0.7 || c.Rate != RateFor(c.Capacity.QPS, 0.7) {
		t.Errorf("rate %.0f QPS (%.0f%%), want the highest passing share, 70%% of %.0f", c.Rate, 100*c.Fraction, c.Capacity.QPS)
	}
}

func TestCalibrateFallsBackLoudlyWhenNoRateIsComfortable(t *testing.T) {
	slow := func(ctx context.Context, q Query) Answer {
		select {
		case <-time.After(300 * time.Millisecond):
			return Answer{OK: true, TimeUsedMs: 300}
		case <-ctx.Done():
			return Answer{TimeUsedMs: -1}
		}
	}
	cfg := CalibrateConfig{Levels: []int{2}, Step: 400 * time.Millisecond, Fractions: []float64{0.9, 0.5}, WarmP99LimitMs: 250}
	c, err := Calibrate(t.Context(), cfg, testMix, slow, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.OpenLoop) != 1 || c.OpenLoop[0].Passed {
		t.Errorf("open loop %+v: want one failing try and no higher one", c.OpenLoop)
	}
	if !c.Fallback || c.Fraction != 0.5 || c.Rate != c.OpenLoop[0].Rate || !strings.Contains(c.Note(), "the LOWEST share tried") {
		t.Errorf("want a loud fallback to the lowest rate; got fallback=%v rate=%v note %q", c.Fallback, c.Rate, c.Note())
	}
}

// A fallback names its cause: a mix whose one-client p99 is over the limit never passes, however
// light the load (the multi-stage mix on a 300m broker); a mix under it failed for the machine's load.
func TestFallbackNoteNamesTheMixOrTheMachine(t *testing.T) {
	for _, tc := range []struct {
		name  string
		steps []CapacityStep
		want  string
	}{
		{"one client already over the limit", []CapacityStep{{Concurrency: 1, P99Ms: 521}}, "with one query in flight the mix's p99 was already 521 ms"},
		{"one client under the limit", []CapacityStep{{Concurrency: 1, P99Ms: 120}}, "the machine was too busy"},
		{"no one-client step", []CapacityStep{{Concurrency: 2, P99Ms: 521}}, "the machine was too busy"},
		{"levels given out of order", []CapacityStep{{Concurrency: 4, P99Ms: 900}, {Concurrency: 1, P99Ms: 521}}, "with one query in flight the mix's p99 was already 521 ms"},
	} {
		c := &Calibration{Steps: tc.steps, Capacity: CapacityStep{Concurrency: 32, QPS: 27},
			OpenLoop: []OpenLoopStep{{Fraction: 0.25, Rate: 5}}, Fraction: 0.25, Rate: 5, WarmP99LimitMs: 250,
			Check: WindowStats{P99Ms: 275}, Fallback: true}
		if n := c.Note(); !strings.Contains(n, tc.want) || !strings.Contains(n, "the LOWEST share tried") {
			t.Errorf("%s: note %q, want it to say %q", tc.name, n, tc.want)
		}
	}
}

// A cold broker's errors (multi-stage planning timing out) wear off: the warm-up goes on until
// they do; a mix that keeps failing ends it, after warmTries, with the count.
func TestWarmingOutlastsAColdBrokersErrors(t *testing.T) {
	// coldFor answers with errors until d has passed since its first query.
	coldFor := func(d time.Duration) SendFunc {
		var once sync.Once
		var start time.Time
		return func(ctx context.Context, q Query) Answer {
			once.Do(func() { start = time.Now() })
			time.Sleep(time.Millisecond)
			if time.Since(start) < d {
				return Answer{Err: "BrokerTimeoutError: Timed out while planning query", TimeUsedMs: -1}
			}
			return Answer{OK: true, TimeUsedMs: 1}
		}
	}
	cfg := CalibrateConfig{Levels: []int{1}, Step: 100 * time.Millisecond, Fractions: []float64{0.5}, WarmP99LimitMs: 1000}
	if _, err := Calibrate(t.Context(), cfg, testMix, coldFor(time.Hour), nil); err == nil ||
		!strings.Contains(err.Error(), fmt.Sprintf("in the last of %d tries", warmTries)) {
		t.Errorf("errors that never end: %v, want warming failed after %d tries", err, warmTries)
	}
	// Errors for the first half of the first try (3 steps of 100 ms): it has more than a tenth.
	var tries []int
	log := func(msg string, args ...any) {
		if msg == "calibration: warming the broker" {
			tries = append(tries, args[1].(int))
		}
	}
	if _, err := Calibrate(t.Context(), cfg, testMix, coldFor(150*time.Millisecond), log); err != nil {
		t.Fatalf("errors that wear off: %v", err)
	}
	if !slices.Equal(tries, []int{1, 2}) {
		t.Errorf("warming tries %v: want a second after the first one's errors, and no third", tries)
	}
}

func TestRateFor(t *testing.T) {
	for _, tc := range []struct{ capacity, frac, want float64 }{{132, 0.6, 75}, {99, 0.6, 55}, {3, 0.5, 5}, {200, 0.9, 180}} {
		if got := RateFor(tc.capacity, tc.frac); got != tc.want {
			t.Errorf("RateFor(%v, %v) = %v, want %v", tc.capacity, tc.frac, got, tc.want)
		}
	}
}
