package prober

import (
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/pkg/prober/judge"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/prober/plan"
)

// Settings are the knobs of one run. A zero field takes the default its comment
// names, so a zero Settings runs the default probe with the sidecar's defaults.
type Settings struct {
	// MinIterations is the successful-probe floor that means warm; 0 is warm at once.
	MinIterations int
	// MaxTables caps the tables of the default probe; ≤ 0: DefaultMaxTables.
	MaxTables int
	// Concurrency is probes in flight per round; ≤ 0: 1.
	Concurrency int
	// ProbeTimeout caps one probe, never beyond the time left; ≤ 0: DefaultProbeTimeout.
	ProbeTimeout time.Duration
	// Queries replace the default probe when set; all run every round.
	Queries []string
	// Tables restrict the default probe to these tables, in this order.
	Tables []string
	// NoScatterProbes is how many no-scatter probes run first (0: skip the step).
	NoScatterProbes int
	// RunID tags this run's clientQueryIds.
	RunID string
	// Exit is the rule that ends a run warm; "" is judge.ExitFloor.
	Exit judge.ExitRule
	// Converge is the latency rule of judge.ExitConverged; zero fields take defaults.
	Converge judge.ConvergeRule
	// JIT is the compile-rate rule, used when the Prober has a Compile source;
	// zero fields take defaults.
	JIT judge.JITRule
	// Shapes chooses the default probe's queries; "" is ShapesSchema.
	Shapes ShapeMode
	// MultiStage says whether the multi-stage engine is warmed too; "" is EngineAuto.
	MultiStage EngineMode
	// MaxRate caps the queries the run sends a second, all of them (the engine's
	// detection, the no-scatter step, every engine's and shape's probes); ≤ 0: no cap.
	MaxRate float64
}

// Defaults for zero Settings fields: the sidecar's own defaults.
const (
	DefaultMaxTables    = plan.DefaultMaxTables
	DefaultProbeTimeout = plan.DefaultProbeTimeout
)

// Plan is what the plan needs of the settings.
func (s Settings) Plan() plan.Settings {
	return plan.Settings{
		MaxTables: s.MaxTables, ProbeTimeout: s.ProbeTimeout, Queries: s.Queries, Tables: s.Tables,
		Shapes: s.Shapes, MultiStage: s.MultiStage,
		NothingToWarm: s.MinIterations == 0 && s.Exit != judge.ExitConverged,
	}
}

// withDefaults fills the zero fields that would otherwise stop a run from probing
// (no tables chosen, empty rounds, probes with no time) until its deadline: the
// plan's (plan.Settings.WithDefaults), and the workers.
func (s Settings) withDefaults() Settings {
	p := s.Plan().WithDefaults()
	s.MaxTables, s.ProbeTimeout, s.Shapes, s.MultiStage = p.MaxTables, p.ProbeTimeout, p.Shapes, p.MultiStage
	if s.Concurrency <= 0 {
		s.Concurrency = 1
	}
	return s
}
