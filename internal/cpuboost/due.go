package cpuboost

import (
	"fmt"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/pkg/prober/event"
)

// evidence is what the give-back is decided on, at one instant.
type evidence struct {
	now time.Time
	// podStart is the pod's start (status.startTime), or the sidecar's until the pod is read.
	podStart time.Time
	// openSince is when the gate last opened; zero while it is closed.
	openSince time.Time
	jit       jitView
}

// jitView is the JIT signal as the give-back sees it.
type jitView struct {
	// source: a compile-time source is configured.
	source bool
	// failing: the last Failures readings in a row failed (why: the last error).
	failing bool
	why     string
	state   event.JITState
}

// available: a source whose readings are coming in.
func (j jitView) available() bool { return j.source && !j.failing }

// due says why the CPU is to be given back now, or "" while the boost stays. In order: the
// maximum boost time; then, with the gate open, a quiet JIT compiler; then the settle time
// since the gate opened, with or without a JIT signal. The JIT signal can only end the boost
// sooner: on the test bed the broker's C2 compiled for minutes after it entered service, and a
// boost given back 60 s after the gate opened, the compiler still busy, cost no latency
// (docs/design.md, "The give-back rule"): holding it for a compiler that never goes quiet buys
// nothing.
func (s Settings) due(e evidence) string {
	if end := e.podStart.Add(s.MaxDuration); !e.now.Before(end) {
		return fmt.Sprintf("the maximum boost time (%s) has passed since the pod started", s.MaxDuration)
	}
	if e.openSince.IsZero() {
		return ""
	}
	if e.jit.available() && e.jit.state.Quiet {
		st := e.jit.state
		return fmt.Sprintf("the gate is open and the broker's JIT compiler is quiet: %d readings in a row at or below %.0f%% of its peak or %.0f ms/s (now %.3f s/s, peak %.3f s/s)",
			st.QuietInARow, 100*s.JIT.QuietFraction, 1000*s.JIT.QuietFloor, st.Rate, st.Peak)
	}
	if e.now.Sub(e.openSince) < s.Settle {
		return ""
	}
	if e.jit.available() {
		st := e.jit.state
		return fmt.Sprintf("the gate has been open for %s (the settle time); the broker's JIT compiler is not quiet yet (now %.3f s/s, peak %.3f s/s): what it still compiles the pod's own CPU carries", s.Settle, st.Rate, st.Peak)
	}
	return fmt.Sprintf("the gate has been open for %s (the settle time) and there is no JIT signal: %s", s.Settle, e.jit.noSignal())
}

// noSignal says why there is no JIT signal.
func (j jitView) noSignal() string {
	if j.source {
		return "its last readings failed: " + j.why
	}
	return j.why
}

// waiting says, for /status, what the boost waits for (due returned "").
func (s Settings) waiting(e evidence) string {
	left := e.podStart.Add(s.MaxDuration).Sub(e.now).Round(time.Second)
	var why string
	switch {
	case e.openSince.IsZero():
		why = "the gate to open (the warmup to end)"
	case e.jit.available() && !e.jit.state.Known:
		why = fmt.Sprintf("a JIT compile rate (readings cover less than their span yet; or the settle time: %s left)", settleLeft(s, e))
	case e.jit.available():
		st := e.jit.state
		why = fmt.Sprintf("the broker's JIT compiler to be quiet: %.3f s/s, peak %.3f s/s, %d of %d quiet readings in a row (or the settle time: %s left)",
			st.Rate, st.Peak, st.QuietInARow, s.JIT.QuietReadings, settleLeft(s, e))
	default:
		why = fmt.Sprintf("the settle time to pass (%s left; no JIT signal: %s)", settleLeft(s, e), e.jit.noSignal())
	}
	return fmt.Sprintf("waiting for %s; the maximum boost time ends in %s", why, left)
}

// settleLeft is the settle time still to pass since the gate opened.
func settleLeft(s Settings, e evidence) time.Duration {
	return (s.Settle - e.now.Sub(e.openSince)).Round(time.Second)
}
