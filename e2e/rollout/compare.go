package rollout

import (
	"fmt"
	"image/color"
	"os"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// compareColours: the first arm (the chart alone, as a rule) in brown, the second in the p99's purple;
// neither is a grey that text or the grid could be mistaken for.
var compareColours = []color.Color{color.NRGBA{R: 140, G: 86, B: 75, A: 255}, colP99}

// ComparePNG draws two arms' rollouts of one study on one time axis, for a page that has room for one
// picture: the p99 per second of both (log scale, each arm's steady p99 dashed), then each arm's pod
// states. Each arm's rollout is the one its timeline shows (the most failed + cancelled queries, the
// first on a tie), so the picture never flatters an arm.
func ComparePNG(s *Study, arms [2]string) ([]byte, error) {
	var rs [2]*Result
	for i, arm := range arms {
		a, ok := s.Arms[arm]
		if !ok || worstRollout(a.Rollouts) == nil {
			return nil, fmt.Errorf("compare: the study has no rollout of arm %q (it has %v)", arm, s.ArmNames())
		}
		rs[i] = worstRollout(a.Rollouts)
	}
	lat := plot.New()
	lat.Title.Text = fmt.Sprintf("a rolling restart of %d brokers at %.0f QPS: %s against %s", s.Brokers, s.RateQPS, arms[0], arms[1])
	lat.Y.Label.Text = "p99 per second (ms)"
	lat.Y.Scale = plot.LogScale{}
	lat.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	lat.Y.Min = plotFloorMs
	lat.Add(plotter.NewGrid())
	hi := 0.0
	for i, r := range rs {
		x0 := r.RolloutStartSeconds
		var p99 plotter.XYs
		for _, sec := range r.Seconds {
			if sec.Queries > 0 {
				p99 = append(p99, plotter.XY{X: sec.At - x0, Y: max(sec.P99Ms, plotFloorMs)})
			}
		}
		if len(p99) == 0 {
			return nil, fmt.Errorf("compare: %s %d: no queries", r.Arm, r.N)
		}
		l, err := line(p99, compareColours[i])
		if err != nil {
			return nil, err
		}
		steady, err := line(plotter.XYs{{X: -x0, Y: max(r.Steady.P99Ms, plotFloorMs)}, {X: p99[len(p99)-1].X, Y: max(r.Steady.P99Ms, plotFloorMs)}}, compareColours[i])
		if err != nil {
			return nil, err
		}
		steady.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
		lat.Add(l, steady)
		lat.Legend.Add(fmt.Sprintf("%s: %d lost, %.0f s (steady p99 %.0f ms, dashed)", r.Arm, r.Failed+r.Cancelled, r.DurationSeconds, r.Steady.P99Ms), l)
		hi = max(hi, p99[len(p99)-1].X+1)
	}
	lat.Legend.Top = true
	plots := []*plot.Plot{lat}
	for _, r := range rs {
		st, err := statesPlot(r, r.RolloutStartSeconds, s.Brokers)
		if err != nil {
			return nil, err
		}
		st.Title.Text = r.Arm
		st.X.Label.Text = ""
		plots = append(plots, st)
	}
	plots[len(plots)-1].X.Label.Text = "seconds since the rollout began (helm upgrade)"
	lo := -max(rs[0].RolloutStartSeconds, rs[1].RolloutStartSeconds)
	for _, p := range plots {
		p.X.Min, p.X.Max = lo, hi
		p.X.Tick.Marker = secondTicks{}
	}
	return columnPNG(plots, 7*vg.Inch)
}

// WriteCompare writes ComparePNG to path.
func WriteCompare(path string, s *Study, arms [2]string) error {
	b, err := ComparePNG(s, arms)
	if err != nil {
		return err
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		return fmt.Errorf("compare: %w", err)
	}
	return nil
}
