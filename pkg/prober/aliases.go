package prober

import (
	"github.com/warmup-sidecar/warmup-sidecar/pkg/prober/plan"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/prober/schedule"
)

// The plan's and the schedule's names that the prober's own API carries
// (Settings, Report, Prober): aliases, so a caller of Run needs no second
// import for them. Their functions are called as plan.X, schedule.X.
type (
	QuotaSource       = schedule.QuotaSource
	CompileTimeSource = schedule.CompileTimeSource

	Plan       = plan.Plan
	Engine     = plan.Engine
	EngineMode = plan.EngineMode
	ShapeMode  = plan.ShapeMode
	Broker     = plan.Broker
	Catalog    = plan.Catalog
)

// Engine and shape modes (Settings.MultiStage, Settings.Shapes).
const (
	EngineAuto   = plan.EngineAuto
	EngineOn     = plan.EngineOn
	EngineOff    = plan.EngineOff
	ShapesSchema = plan.ShapesSchema
	ShapesLimit1 = plan.ShapesLimit1
	NoScatterSQL = plan.NoScatterSQL
	ShapeLimit1  = plan.ShapeLimit1
)

// MultiStageSQL is the multi-stage engine's no-scatter probe (plan.MultiStageSQL).
var MultiStageSQL = plan.MultiStageSQL
