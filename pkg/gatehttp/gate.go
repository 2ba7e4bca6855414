package gatehttp

import (
	"sync"
	"sync/atomic"
)

// Gate is the one source of truth for readiness: whether warmup lets the pod be
// Ready, and the phase. Handlers read it lock-free; writers take a lock so that
// Stop is final; the gauges mirror it.
type Gate struct {
	open   atomic.Bool
	phase  atomic.Pointer[Phase]
	reason atomic.Pointer[string]
	m      *Metrics

	mu      sync.Mutex // serialises writers
	stopped bool
}

// NewGate starts closed, waiting for the broker.
func NewGate(m *Metrics) *Gate {
	g := &Gate{m: m}
	g.SetPhase(PhaseWaiting, "waiting for the broker's /health to answer 200")
	return g
}

// SetPhase moves to p; reason says, in one line, why the gate is as it is.
// After Stop it does nothing.
func (g *Gate) SetPhase(p Phase, reason string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.stopped {
		g.set(p, reason)
	}
}

func (g *Gate) set(p Phase, reason string) {
	g.phase.Store(&p)
	g.reason.Store(&reason)
	if g.m != nil {
		g.m.setPhase(p)
	}
}

// Stop closes the gate for good, in phase stopping: a supervisor still winding
// down can neither reopen it nor change its phase.
func (g *Gate) Stop(reason string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.stopped = true
	g.setOpen(false)
	g.set(PhaseStopping, reason)
}

// Open lets readiness through (still subject to broker health). After Stop it
// does nothing.
func (g *Gate) Open() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.stopped {
		g.setOpen(true)
	}
}

// Close holds readiness back.
func (g *Gate) Close() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.setOpen(false)
}

func (g *Gate) setOpen(open bool) {
	g.open.Store(open)
	if g.m == nil {
		return
	}
	if open {
		g.m.Warm.Set(1)
	} else {
		g.m.Warm.Set(0)
	}
}

// IsOpen reports whether warmup allows readiness.
func (g *Gate) IsOpen() bool { return g.open.Load() }

// Phase is the current phase.
func (g *Gate) Phase() Phase { return *g.phase.Load() }

// Reason is the one-line reason stored with the phase.
func (g *Gate) Reason() string { return *g.reason.Load() }
