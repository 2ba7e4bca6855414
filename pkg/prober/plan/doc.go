// Package plan decides what a warmup sends: the probe targets. It asks the
// controller for the tables and this broker for their routing, chooses the
// tables that cover the broker's servers, reads each chosen leg's schema and a
// few rows to derive its query shapes (pkg/shapes), and finds whether the broker
// serves the multi-stage engine. It knows nothing of how the probes are sent
// (the schedule) or judged (pkg/prober/judge): a Plan is a value.
package plan
