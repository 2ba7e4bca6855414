// Package gatehttp owns the readiness gate and its HTTP face: /readyz, /livez,
// /status and /metrics, and the Prometheus collectors behind them.
//
// Failure policy: the gate always opens by the budget, unless fail-closed is
// asked for; /readyz additionally needs the broker's own /health to be 200.
package gatehttp
