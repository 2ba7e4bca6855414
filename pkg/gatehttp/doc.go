// Package gatehttp owns the readiness gate and its HTTP face: /readyz, /livez,
// /status and /metrics, the broker-health cache behind /readyz, and the gate's
// Prometheus collectors. What /status shows and how the broker is asked are the
// sidecar's, handed in as functions: the gate knows neither the prober nor Pinot.
// It owns the one verdict on a /health check (JudgeHealth: healthy, down, slow)
// that /readyz and the supervisor's watch both read.
//
// Failure policy: the gate always opens by the budget, unless fail-closed is
// asked for; /readyz additionally needs the broker's own /health to be 200.
package gatehttp
