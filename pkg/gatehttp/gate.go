package gatehttp

import (
	"sync/atomic"
)

// Gate is the one source of truth for readiness: whether warmup lets the pod be
// Ready, and the phase. Handlers read it lock-free; the gauges mirror it.
type Gate struct {
	open   atomic.Bool
	phase  atomic.Pointer[Phase]
	reason atomic.Pointer[string]
	m      *Metrics
}

// NewGate starts closed, waiting for the broker.
func NewGate(m *Metrics) *Gate {
	g := &Gate{m: m}
	g.SetPhase(PhaseWaiting, "waiting for the broker's /health to answer 200")
	return g
}

// SetPhase moves to p; reason says, in one line, why the gate is as it is.
func (g *Gate) SetPhase(p Phase, reason string) {
	g.phase.Store(&p)
	g.reason.Store(&reason)
	if g.m != nil {
		g.m.setPhase(p)
	}
}

// Open lets readiness through (still subject to broker health).
func (g *Gate) Open() {
	g.open.Store(true)
	if g.m != nil {
		g.m.Warm.Set(1)
	}
}

// Close holds readiness back.
func (g *Gate) Close() {
	g.open.Store(false)
	if g.m != nil {
		g.m.Warm.Set(0)
	}
}

// IsOpen reports whether warmup allows readiness.
func (g *Gate) IsOpen() bool { return g.open.Load() }

// Phase is the current phase.
func (g *Gate) Phase() Phase { return *g.phase.Load() }

// Reason is the one-line reason stored with the phase.
func (g *Gate) Reason() string { return *g.reason.Load() }
