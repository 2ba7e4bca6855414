package prober

import (
	"fmt"
	"strings"
	"time"
)

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

// warmEnough reports whether the evidence the exit rule asks for, beyond the
// floor, is in.
func (r *run) warmEnough() bool {
	if r.s.Exit != ExitConverged {
		return true
	}
	return r.conv != nil && r.conv.Converged() && r.jit.quietOrIgnored()
}

// reason says in one line why the run ends with this outcome.
func (r *run) reason(o Outcome) string {
	floor := r.s.MinIterations
	ok := r.succeeded.Load()
	if o == OutcomeWarm {
		parts := []string{fmt.Sprintf("floor of %d successful probes reached", floor)}
		if r.s.Exit == ExitConverged {
			var shapes []string
			for _, st := range r.conv.States() {
				shapes = append(shapes, st.Shape)
			}
			parts = append(parts, "latency flat on "+capList(shapes))
			parts = append(parts, r.jit.describe())
		}
		return strings.Join(nonEmpty(parts), "; ")
	}
	var missing []string
	if ok < int64(floor) {
		missing = append(missing, fmt.Sprintf("%d of %d successful probes", ok, floor))
	} else if short := r.engineShortfall(); short != "" {
		missing = append(missing, short)
	}
	if r.s.Exit == ExitConverged {
		if r.conv != nil && !r.conv.Converged() {
			missing = append(missing, "latency not yet flat on "+r.unsettled())
		}
		if !r.jit.quietOrIgnored() {
			missing = append(missing, r.jit.describe())
		}
	}
	if len(missing) == 0 {
		return "budget ran out"
	}
	return "budget ran out with " + strings.Join(missing, "; ")
}

// unsettled names the shapes not yet converged, with how far each got; the
// pooled (multi-stage) shapes once, as their engine.
func (r *run) unsettled() string {
	var out []string
	need := r.conv.Rule().Windows
	pooled := 0
	for _, s := range r.conv.States() {
		switch {
		case s.Converged:
		case s.Pooled:
			if pooled++; pooled == 1 {
				out = append(out, fmt.Sprintf("the multi-stage shapes together (%d of %d flat windows)", s.InARow, need))
			}
		case s.Best == 0:
			out = append(out, fmt.Sprintf("%s (%d probes, no full window)", s.Shape, s.Probes))
		default:
			out = append(out, fmt.Sprintf("%s (%d of %d flat windows)", s.Shape, s.InARow, need))
		}
	}
	return capList(out)
}

// listed caps the shapes a reason names: a generated plan can have dozens.
const listed = 5

// capList joins items, naming at most the first few and counting the rest.
func capList(items []string) string {
	if len(items) > listed {
		items = append(items[:listed:listed], fmt.Sprintf("%d more", len(items)-listed))
	}
	return strings.Join(items, ", ")
}

func nonEmpty(ss []string) []string {
	out := ss[:0]
	for _, s := range ss {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

// converge feeds one floor probe to the shape's convergence.
func (r *run) converge(sql string, lat time.Duration, ok bool) {
	closed := r.conv.Observe(sql, lat, ok)
	for _, st := range closed {
		r.p.Observer.Observe(Event{Kind: KindShapeWindow, Shape: st})
	}
}
