// Package judge decides when a broker is warm. It is fed a run's events
// (pkg/prober/event), each with the clock value it happened at: the plan, each
// probe's answer and latency, the queries dropped, the JIT compile-time
// readings. It answers the events its evidence yields (a shape's window
// closed, the JIT signal's state) and a verdict: warm, or not yet and why. It
// holds the floor (and each engine's share of it), the convergence of every
// shape (per table leg, the multi-stage shapes pooled as one engine), the
// give-up rule for queries that never succeed, and the JIT signal.
//
// It does no I/O and starts no goroutine: the prober's schedule sends the
// probes and reads the JVM, and feeds the judge. It is safe for concurrent
// use, as the schedule's workers report at once.
package judge
