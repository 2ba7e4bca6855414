package rollout

import (
	"fmt"
	"strings"
)

// armFigures are an arm's rollouts as the per-arm table sums them up: what its cells and an
// arm's row outside the report (ArmRow) are made of.
type armFigures struct {
	rollouts, unsettled, unfinished int
	// failed, cancelled: per rollout, as the table lists them; lost: their sum per rollout.
	failed, cancelled []string
	lost              []int
	// phase: failed + cancelled over every rollout, by phase.
	phase                                        map[string]int
	rate, ratio, quiet, entry, neigh, dur, ready []float64
	phases                                       []*NeighboursByPhase
}

func figuresOf(rs []*Result) armFigures {
	f := armFigures{rollouts: len(rs), phase: map[string]int{}}
	for _, r := range rs {
		if r.Unsettled != "" {
			f.unsettled++
		}
		f.failed, f.cancelled = append(f.failed, fmt.Sprint(r.Failed)), append(f.cancelled, fmt.Sprint(r.Cancelled))
		f.lost = append(f.lost, r.Failed+r.Cancelled)
		if r.Queries > 0 {
			f.rate = append(f.rate, float64(r.Failed+r.Cancelled)/float64(r.Queries))
		}
		f.ratio = append(f.ratio, r.Worst10sRatio)
		if r.QuietWorst10sRatio > 0 {
			f.quiet = append(f.quiet, r.QuietWorst10sRatio)
		}
		for _, e := range r.Entries {
			f.entry = append(f.entry, e.Ratio)
		}
		if r.NeighboursQueries > 0 {
			f.neigh = append(f.neigh, r.NeighboursRatio)
		}
		f.phases = append(f.phases, r.NeighboursByPhase)
		if r.Unfinished != "" {
			f.unfinished++
		} else {
			f.dur = append(f.dur, r.DurationSeconds)
		}
		f.ready = append(f.ready, readyTimes(r.Pods)...)
		for _, p := range r.ByPhase {
			f.phase[p.Phase] += p.Failed + p.Cancelled
		}
	}
	return f
}

// durationCell is the finished rollouts' duration, and how many did not finish.
func (f armFigures) durationCell() string {
	c := orDash(f.dur, secsCell)
	if f.unfinished > 0 {
		c += fmt.Sprintf("; %d did not finish", f.unfinished)
	}
	return c
}

// ArmRow is arm's rollouts in one phrase, for a comparison outside the report (the README's):
// the queries lost per rollout (and per scale-out), each pod's first 10 s in the Service over
// the steady p99, the duration (and against off's), start → Ready and, when recorded, the pods
// in service while a pod is warmed. Its figures are the per-arm table's, made by the same code.
func ArmRow(s *Study, arm string) (string, error) {
	a := s.Arms[arm]
	switch {
	case a == nil:
		return "", fmt.Errorf("no arm %q in the study (its arms: %s)", arm, strings.Join(s.ArmNames(), ", "))
	case len(a.Rollouts) == 0:
		return "", fmt.Errorf("arm %q has no rollout", arm)
	}
	f := figuresOf(a.Rollouts)
	entry := "no pod entered the Service within a rollout"
	if len(f.entry) > 0 {
		entry = "first 10 s in the Service " + entryCell(f.entry) + " the steady p99"
	}
	parts := []string{lostPhrase(f.lost, a.ScaleOuts), entry}
	dur := "rollout " + f.durationCell()
	if off := medianDuration(s, ArmOff); arm != ArmOff && off > 0 && f.unfinished == 0 {
		dur += fmt.Sprintf(", %.2f× `off`'s", medianDuration(s, arm)/off)
	}
	parts = append(parts, dur, "start → Ready "+orDash(f.ready, func(v []float64) string { return fmt.Sprintf("%.0f s", median(v)) }))
	if m, ok := phaseMedian(f.phases, warmingPhase); ok {
		parts = append(parts, fmt.Sprintf("the pods in service %.1f× the steady p99 while a pod is warmed", m))
	}
	return strings.Join(parts, "; "), nil
}

// lostPhrase is the queries lost (failed + cancelled) per rollout, then per scale-out.
func lostPhrase(lost []int, scaleOuts []*Result) string {
	p := "lost " + joinInts(lost) + " per rollout"
	if len(scaleOuts) == 0 {
		return p
	}
	var so []int
	for _, r := range scaleOuts {
		so = append(so, r.Failed+r.Cancelled)
	}
	if len(so) == 1 {
		return p + fmt.Sprintf(", %d in the scale-out", so[0])
	}
	return p + ", " + joinInts(so) + " per scale-out"
}

func joinInts(v []int) string {
	s := make([]string, len(v))
	for i, n := range v {
		s[i] = fmt.Sprint(n)
	}
	return strings.Join(s, ", ")
}
