package judge

import "time"

// ExitRule is what ends a run warm before its budget.
type ExitRule string

// Exit rules. The zero value is ExitFloor.
const (
	// ExitFloor: the success floor alone.
	ExitFloor ExitRule = "floor"
	// ExitConverged: the floor, and probe latency flat on every shape, and (when
	// the broker's JVM metrics are known) the JIT compile rate quiet.
	ExitConverged ExitRule = "converged"
)

// Rules are what a Judge asks of a run.
type Rules struct {
	// Floor is the successful probes that mean warm; 0 is warm at once.
	Floor int
	// Exit is the rule beyond the floor; "" is ExitFloor.
	Exit ExitRule
	// Converge is the latency rule of ExitConverged; zero fields take defaults.
	Converge ConvergeRule
	// JIT is the compile-rate rule, used once WatchJIT is called; zero fields
	// take defaults.
	JIT JITRule
	// Budget is the run's whole time, which the give-up rule takes a third of.
	Budget time.Duration
	// MaxRate is the run's cap on queries a second (≤ 0: none): a floor it
	// cannot reach within the budget is named as the reason (reason.go).
	MaxRate float64
}

// orDefault is v, or d when v is unset (zero or negative).
func orDefault[T int | float64 | time.Duration](v, d T) T {
	if v <= 0 {
		return d
	}
	return v
}
