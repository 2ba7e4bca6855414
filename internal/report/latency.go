package report

import (
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/pkg/prober/judge"
)

// latencyWindow keeps the first and the last n probe latencies of a run: their
// medians show the cold effect this project exists for (first probes slow, last
// fast) without keeping every sample.
type latencyWindow struct {
	n     int
	first []time.Duration
	last  []time.Duration // ring
	next  int
	total int
}

func newLatencyWindow(n int) latencyWindow {
	return latencyWindow{n: n, first: make([]time.Duration, 0, n), last: make([]time.Duration, 0, n)}
}

func (w *latencyWindow) add(d time.Duration) {
	w.total++
	if len(w.first) < w.n {
		w.first = append(w.first, d)
	}
	if len(w.last) < w.n {
		w.last = append(w.last, d)
		return
	}
	w.last[w.next] = d
	w.next = (w.next + 1) % w.n
}

func medianMs(ds []time.Duration) float64 { return durationMs(judge.Median(ds)) }
