package backoff

import (
	"context"
	"math"
	"slices"
	"testing"
	"time"
)

func TestDoublingFromMinToMax(t *testing.T) {
	b := Doubling{Min: time.Second, Max: 30 * time.Second}
	var got []time.Duration
	for range 8 {
		got = append(got, b.Next())
	}
	want := []time.Duration{1, 2, 4, 8, 16, 30, 30, 30}
	for i := range want {
		want[i] *= time.Second
	}
	if !slices.Equal(got, want) {
		t.Fatalf("waits %v, want %v", got, want)
	}
	b.Reset()
	if d := b.Next(); d != time.Second {
		t.Fatalf("after Reset: %s, want Min", d)
	}
}

func TestDoublingNeverOverflows(t *testing.T) {
	b := Doubling{Min: time.Duration(math.MaxInt64 / 3), Max: time.Duration(math.MaxInt64)}
	for range 4 {
		if d := b.Next(); d <= 0 || d > b.Max {
			t.Fatalf("wait %d outside (0, Max]", d)
		}
	}
}

func TestSleepEndsWithItsContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if Sleep(ctx, time.Hour) {
		t.Fatal("Sleep on an ended context reported a full wait")
	}
	if Sleep(ctx, 0) {
		t.Fatal("Sleep(0) on an ended context reported true")
	}
	if !Sleep(context.Background(), 0) {
		t.Fatal("Sleep(0) on a live context reported false")
	}
}
