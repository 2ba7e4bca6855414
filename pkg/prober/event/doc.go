// Package event is what flows out of a warmup run: one Event type, each with
// a Kind saying which of its fields are set, and one Observer that hears them.
// The schedule reports what it does as Events; the judge (pkg/prober/judge)
// takes the same Events as its evidence, and the reporting (the sidecar's
// status, metrics and logs) reads them. It holds the small value types an
// Event carries and imports only their owners (pkg/pinot, pkg/prober/plan),
// so the judge and the reporting can import it without importing the run.
package event
