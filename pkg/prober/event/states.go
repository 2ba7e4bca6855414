package event

import "time"

// The judge's states the reporting reads, carried by KindShapeWindow and
// KindJITRead events (pkg/prober/judge computes them).

// ShapeState is one shape's convergence so far.
type ShapeState struct {
	Shape string
	// Probes counts the shape's successful probes.
	Probes int
	// Latest is the latest complete window's median: the slowest query's of
	// the shape (each table leg's query is judged on its own); 0 before the
	// first window.
	Latest time.Duration
	// Best is the smallest Latest seen; 0 before the first window.
	Best time.Duration
	// InARow counts the flat windows in a row ending with the latest.
	InARow    int
	Converged bool
	// Pooled: the shape's windows and verdict are its engine's (pkg/prober/judge/converge_pool.go).
	Pooled bool
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
