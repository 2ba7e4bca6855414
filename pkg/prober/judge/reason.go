package judge

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Reason says in one line why the run is warm (warm) or what it lacks at its
// budget (not warm).
func (j *Judge) Reason(warm bool) string {
	floor := j.rules.Floor
	ok := j.floor.succeeded.Load()
	converged := j.rules.Exit == ExitConverged
	if warm {
		parts := []string{fmt.Sprintf("floor of %d successful probes reached", floor)}
		if converged {
			var shapes []string
			for _, st := range j.conv.States() {
				shapes = append(shapes, st.Shape)
			}
			parts = append(parts, "latency flat on "+capList(shapes))
			parts = append(parts, j.jit.describe())
		}
		return strings.Join(nonEmpty(parts), "; ")
	}
	var missing []string
	if ok < int64(floor) {
		missing = append(missing, fmt.Sprintf("%d of %d successful probes", ok, floor)+j.capBound())
	} else if short := j.floor.shortfall(); short != "" {
		missing = append(missing, short)
	}
	if converged {
		if j.conv != nil && !j.conv.Converged() {
			missing = append(missing, "latency not yet flat on "+j.unsettled())
		}
		if !j.jit.quietOrIgnored() {
			missing = append(missing, j.jit.describe())
		}
	}
	if len(missing) == 0 {
		return "budget ran out"
	}
	return "budget ran out with " + strings.Join(missing, "; ")
}

// unsettled names the shapes not yet converged, with how far each got; the
// pooled (multi-stage) shapes once, as their engine.
func (j *Judge) unsettled() string {
	var out []string
	need := j.conv.Rule().Windows
	pooled := 0
	for _, s := range j.conv.States() {
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

// capBound says, in parentheses, that the run's cap on queries a second could
// not give the floor within the budget ("" when it could, or there is no cap):
// the operator then lowers the floor or raises the cap, not the broker's CPU.
func (j *Judge) capBound() string {
	r := j.rules
	if r.MaxRate <= 0 {
		return ""
	}
	need := float64(r.Floor) / r.MaxRate
	if need <= r.Budget.Seconds() {
		return ""
	}
	return fmt.Sprintf(" (the floor of %d probes needs %s s at %s probes/s, more than the %s s budget)",
		r.Floor, tenths(need), tenths(r.MaxRate), tenths(r.Budget.Seconds()))
}

// tenths prints v to a tenth at most: 60, 142.9, 0.7.
func tenths(v float64) string {
	return strconv.FormatFloat(math.Round(v*10)/10, 'f', -1, 64)
}
