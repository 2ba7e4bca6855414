// Package prober runs one warmup: plan the probe targets (pkg/prober/plan),
// fire the no-scatter step, then probes until the run is warm or the deadline
// passes (budget expired). Whether it is warm is the judge's call
// (pkg/prober/judge): the success floor, and with ExitConverged also flat
// probe latency on every shape and, when the broker's JVM metrics are known, a
// quiet JIT compiler. Each thing the run does is one event.Event
// (pkg/prober/event), heard by the judge first and then by the Observer; the
// prober knows nothing of Prometheus or HTTP serving, and never blocks past
// its deadline.
package prober
