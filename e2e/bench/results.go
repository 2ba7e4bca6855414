package bench

import (
	"fmt"
	"path/filepath"
	"slices"

	"github.com/warmup-sidecar/warmup-sidecar/e2e/coldstart"
)

// Traces are each arm's load traces, in restart order.
type Traces map[string][]*coldstart.Trace

// Outputs are the files WriteResults wrote.
type Outputs struct{ JSON, Markdown, PNG string }

// WriteResults writes <name>.json, <name>.md and <name>.png into dir. The plot shows, for
// each arm, the restart with the median cold cancellation rate: a typical restart, neither
// the luckiest nor the worst.
func WriteResults(dir, name string, s *coldstart.Study, traces Traces) (Outputs, error) {
	out := Outputs{
		JSON:     filepath.Join(dir, name+".json"),
		Markdown: filepath.Join(dir, name+".md"),
		PNG:      filepath.Join(dir, name+".png"),
	}
	if err := coldstart.WriteJSON(out.JSON, s); err != nil {
		return out, err
	}
	if err := coldstart.WriteMarkdown(out.Markdown, s); err != nil {
		return out, err
	}
	var runs []coldstart.PlotRun
	for _, arm := range s.ArmNames() {
		rs := s.Arms[arm].Restarts
		if len(rs) == 0 || len(traces[arm]) != len(rs) {
			continue
		}
		i := medianIndex(rs)
		runs = append(runs, coldstart.PlotRun{
			Title: fmt.Sprintf("%s, restart %d/%d (median cold cancellations %.1f%%)", arm, i+1, len(rs), 100*rs[i].ColdCancelRate),
			Trace: traces[arm][i],
		})
	}
	if len(runs) == 0 {
		return out, fmt.Errorf("write results: no traces to plot")
	}
	return out, coldstart.WritePlot(out.PNG, runs, coldstart.PlotOptions{Cold: s.ColdWindow, Warm: s.WarmWindow, End: s.WarmWindow.End})
}

// medianIndex is the restart with the median cold cancellation rate (the lower middle one
// for an even count).
func medianIndex(rs []coldstart.Restart) int {
	idx := make([]int, len(rs))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		switch {
		case rs[a].ColdCancelRate < rs[b].ColdCancelRate:
			return -1
		case rs[a].ColdCancelRate > rs[b].ColdCancelRate:
			return 1
		}
		return 0
	})
	return idx[(len(idx)-1)/2]
}
