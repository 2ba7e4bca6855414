package coldstart

import (
	"context"
	"slices"
	"strings"
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

func TestRateFor(t *testing.T) {
	for _, tc := range []struct{ capacity, frac, want float64 }{{132, 0.6, 75}, {99, 0.6, 55}, {3, 0.5, 5}, {200, 0.9, 180}} {
		if got := RateFor(tc.capacity, tc.frac); got != tc.want {
			t.Errorf("RateFor(%v, %v) = %v, want %v", tc.capacity, tc.frac, got, tc.want)
		}
	}
}
