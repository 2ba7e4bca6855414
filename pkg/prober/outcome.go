package prober

import "time"

// Outcome is how a run ended.
type Outcome string

// Outcomes, also the values of the runs_total{outcome} label.
const (
	OutcomeWarm          Outcome = "warm"
	OutcomeBudgetExpired Outcome = "budget_expired"
	OutcomeFailed        Outcome = "failed"
)

// Report is the result of one run.
type Report struct {
	// Outcome is how the run ended.
	Outcome Outcome
	// Succeeded and Failed count floor probes (the no-scatter step is not counted).
	Succeeded int64
	Failed    int64
	// Err says why a run failed or what last went wrong planning.
	Err error
	// Reason says in one line why the run ended warm or at the budget: the
	// floor, the shapes still converging, the JIT signal.
	Reason string
	// Plan is what the run probed (zero when no plan was made).
	Plan Plan
	// Duration is the run's wall time by the Prober's clock.
	Duration time.Duration
}
