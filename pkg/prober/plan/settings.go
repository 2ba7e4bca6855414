package plan

import "time"

// Settings are what the plan needs of a run's settings. A zero field takes the
// default its comment names.
type Settings struct {
	// MaxTables caps the tables of the default probe; ≤ 0: DefaultMaxTables.
	MaxTables int
	// ProbeTimeout caps one planning call and the engine's detection probe;
	// ≤ 0: DefaultProbeTimeout.
	ProbeTimeout time.Duration
	// Queries replace the default probe when set.
	Queries []string
	// Tables restrict the default probe to these tables, in this order.
	Tables []string
	// Shapes chooses the default probe's queries; "" is ShapesSchema.
	Shapes ShapeMode
	// MultiStage says whether the multi-stage engine is warmed too; "" is EngineAuto.
	MultiStage EngineMode
	// NothingToWarm: the run asks no probe to succeed (a floor of 0 under the
	// floor exit rule), so the engine is not looked for.
	NothingToWarm bool
}

// Defaults for zero Settings fields: the sidecar's own defaults.
const (
	DefaultMaxTables    = 5
	DefaultProbeTimeout = 5 * time.Second
)

// WithDefaults fills the zero fields that would otherwise leave the plan
// without tables or its calls without time.
func (s Settings) WithDefaults() Settings {
	if s.MaxTables <= 0 {
		s.MaxTables = DefaultMaxTables
	}
	if s.ProbeTimeout <= 0 {
		s.ProbeTimeout = DefaultProbeTimeout
	}
	if s.Shapes == "" {
		s.Shapes = ShapesSchema
	}
	if s.MultiStage == "" {
		s.MultiStage = EngineAuto
	}
	return s
}

// NoScatterSQL is answered by the broker itself, with no server: a literal-only
// query compiles and builds a response without scatter/gather.
const NoScatterSQL = "SELECT 1"
