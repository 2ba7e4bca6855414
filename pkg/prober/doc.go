// Package prober runs one warmup: plan the probe targets, fire the no-scatter step,
// then rounds of probes until the success floor (warm) or the deadline
// (budget expired). It reports through an Observer and knows nothing of
// Prometheus or HTTP serving; it never blocks past its deadline.
package prober
