// Package prober runs one warmup: plan the probe targets, fire the no-scatter
// step, then probes until the run is warm or the deadline passes (budget
// expired). Whether it is warm is the judge's call (pkg/prober/judge): the
// success floor, and with ExitConverged also flat probe latency on every shape
// and, when the broker's JVM metrics are known, a quiet JIT compiler. It
// reports each thing it does as one Event to an Observer and knows nothing of
// Prometheus or HTTP serving; it never blocks past its deadline.
package prober
