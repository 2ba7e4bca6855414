package report

import (
	"testing"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/pkg/gatehttp"
)

func TestLatencyWindowMediansOfFirstAndLast(t *testing.T) {
	b := NewStatusBoard(true, 0, time.Second, time.Now)
	// 50 slow probes (100..149 ms), then 200 fast ones (1..200 µs·10).
	for i := range 50 {
		b.ProbeLatency(time.Duration(100+i) * time.Millisecond)
	}
	for i := range 200 {
		b.ProbeLatency(time.Duration(i+1) * 10 * time.Microsecond)
	}
	s := b.Snapshot(gatehttp.NewGate(nil))
	if s.FirstProbesMedianMs != 124.5 {
		t.Errorf("first median = %v ms, want 124.5", s.FirstProbesMedianMs)
	}
	// Last 50 are 151..200 ×10µs: median (175+176)/2 ×10µs = 1.755 ms.
	if s.LastProbesMedianMs != 1.755 {
		t.Errorf("last median = %v ms, want 1.755", s.LastProbesMedianMs)
	}
}

func TestLatencyWindowResetsPerRun(t *testing.T) {
	b := NewStatusBoard(true, 0, time.Second, time.Now)
	b.ProbeLatency(time.Second)
	b.StartRun(time.Now(), time.Now().Add(time.Second))
	b.ProbeLatency(2 * time.Millisecond)
	if s := b.Snapshot(gatehttp.NewGate(nil)); s.FirstProbesMedianMs != 2 {
		t.Fatalf("first median after a new run = %v, want 2", s.FirstProbesMedianMs)
	}
}
