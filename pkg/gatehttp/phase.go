package gatehttp

// Phase is where the sidecar is in its life; exported as pinot_warmup_phase{phase}.
type Phase string

// Phases, in the order a healthy life passes through them.
const (
	PhaseWaiting  Phase = "waiting_for_broker"
	PhaseWarming  Phase = "warming"
	PhaseWarm     Phase = "warm"
	PhaseStopping Phase = "stopping"
)

// Phases lists every phase, for pre-creating the gauge's series.
var Phases = []Phase{PhaseWaiting, PhaseWarming, PhaseWarm, PhaseStopping}
