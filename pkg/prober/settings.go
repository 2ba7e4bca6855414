package prober

import "time"

// Settings are the knobs of one run (from WARMUP_* in the sidecar).
type Settings struct {
	// MinIterations is the successful-probe floor that means warm.
	MinIterations int
	// MaxTables caps the set-cover tables of the default probe.
	MaxTables int
	// Concurrency is probes in flight per round, already clamped to [1, 64].
	Concurrency int
	// ProbeTimeout caps one probe; never beyond the remaining budget.
	ProbeTimeout time.Duration
	// Queries replace the default probe when set; all run every round.
	Queries []string
	// Tables restrict the default probe to these tables.
	Tables []string
	// NoScatterProbes is how many broker-only probes run first (0: skip the step).
	NoScatterProbes int
	// RunID tags this run's clientQueryIds.
	RunID string
	// Exit is the rule that ends a run warm; "" is ExitFloor.
	Exit ExitRule
	// Converge is the latency rule of ExitConverged; zero fields take defaults.
	Converge ConvergeRule
	// JIT is the compile-rate rule, used when the Prober has a Compile source;
	// zero fields take defaults.
	JIT JITRule
}

// NoScatterSQL is answered by the broker itself, with no server: a literal-only
// query compiles and builds a response without scatter/gather.
const NoScatterSQL = "SELECT 1"
