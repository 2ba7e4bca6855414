package rollout

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"os"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

var (
	colThroughput = color.NRGBA{R: 31, G: 119, B: 180, A: 255}
	colFailed     = color.NRGBA{R: 214, G: 39, B: 40, A: 255}
	colP50        = color.NRGBA{R: 44, G: 160, B: 44, A: 255}
	colP99        = color.NRGBA{R: 148, G: 103, B: 189, A: 255}
	colState      = map[State]color.Color{
		StateTerminating: color.NRGBA{R: 214, G: 39, B: 40, A: 200},
		StateStarting:    color.NRGBA{R: 255, G: 127, B: 14, A: 200},
		StateWarming:     color.NRGBA{R: 255, G: 215, B: 0, A: 220},
		StateReady:       color.NRGBA{R: 44, G: 160, B: 44, A: 170},
	}
)

// plotFloorMs: the p99 axis is logarithmic.
const plotFloorMs = 1

// TimelinePNG draws one rollout on the seconds since its start (the helm upgrade): throughput and
// failed + cancelled queries per second, p50 and p99 per second, and each pod's state.
func TimelinePNG(r *Result, s *Study) ([]byte, error) {
	x0 := r.RolloutStartSeconds
	title := fmt.Sprintf("%s, %s %d (%d brokers, %.0f QPS)", r.Arm, r.Kind, r.N, s.Brokers, s.RateQPS)
	top, err := throughputPlot(r, x0, title)
	if err != nil {
		return nil, err
	}
	mid, err := latencyPlot(r, x0)
	if err != nil {
		return nil, err
	}
	bottom, err := statesPlot(r, x0, s.Brokers)
	if err != nil {
		return nil, err
	}
	lo, hi := -x0, 0.0
	if n := len(r.Seconds); n > 0 {
		hi = r.Seconds[n-1].At + 1 - x0
	}
	for _, p := range []*plot.Plot{top, mid, bottom} {
		p.X.Min, p.X.Max = lo, hi
		p.X.Tick.Marker = secondTicks{}
	}
	top.X.Label.Text, mid.X.Label.Text = "", ""
	return columnPNG([]*plot.Plot{top, mid, bottom}, 8*vg.Inch)
}

// columnPNG draws plots one above the other, aligned, on a picture 10 inches wide and height high.
func columnPNG(plots []*plot.Plot, height vg.Length) ([]byte, error) {
	grid := make([][]*plot.Plot, len(plots))
	for i, p := range plots {
		grid[i] = []*plot.Plot{p}
	}
	img := vgimg.New(10*vg.Inch, height)
	tiles := draw.Tiles{Rows: len(grid), Cols: 1, PadY: 0.15 * vg.Inch, PadTop: 0.1 * vg.Inch, PadBottom: 0.1 * vg.Inch,
		PadLeft: 0.1 * vg.Inch, PadRight: 0.2 * vg.Inch}
	canvases := plot.Align(grid, tiles, draw.New(img))
	for i := range grid {
		grid[i][0].Draw(canvases[i][0])
	}
	var buf bytes.Buffer
	if _, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(&buf); err != nil {
		return nil, fmt.Errorf("timeline: encoding PNG: %w", err)
	}
	return buf.Bytes(), nil
}

// WriteTimeline writes TimelinePNG to path.
func WriteTimeline(path string, r *Result, s *Study) error {
	b, err := TimelinePNG(r, s)
	if err != nil {
		return err
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		return fmt.Errorf("timeline: %w", err)
	}
	return nil
}

func line(xys plotter.XYs, c color.Color) (*plotter.Line, error) {
	l, err := plotter.NewLine(xys)
	if err != nil {
		return nil, fmt.Errorf("timeline: %w", err)
	}
	l.Color, l.Width = c, vg.Points(1.2)
	return l, nil
}

func throughputPlot(r *Result, x0 float64, title string) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = title
	p.Y.Label.Text = "queries / s"
	var ok, bad plotter.XYs
	for _, s := range r.Seconds {
		ok = append(ok, plotter.XY{X: s.At - x0, Y: float64(s.OK)})
		bad = append(bad, plotter.XY{X: s.At - x0, Y: float64(s.Failed + s.Cancelled)})
	}
	l1, err := line(ok, colThroughput)
	if err != nil {
		return nil, err
	}
	l2, err := line(bad, colFailed)
	if err != nil {
		return nil, err
	}
	p.Add(plotter.NewGrid(), l1, l2)
	p.Legend.Add("answered", l1)
	p.Legend.Add(fmt.Sprintf("failed + cancelled (%d + %d in the rollout)", r.Failed, r.Cancelled), l2)
	p.Legend.Top = true
	p.Y.Min = 0
	return p, nil
}

func latencyPlot(r *Result, x0 float64) (*plot.Plot, error) {
	p := plot.New()
	p.Y.Label.Text = "latency per second (ms)"
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	var p50, p99 plotter.XYs
	for _, s := range r.Seconds {
		if s.Queries == 0 {
			continue
		}
		p50 = append(p50, plotter.XY{X: s.At - x0, Y: max(s.P50Ms, plotFloorMs)})
		p99 = append(p99, plotter.XY{X: s.At - x0, Y: max(s.P99Ms, plotFloorMs)})
	}
	if len(p99) == 0 {
		return nil, fmt.Errorf("timeline: %s %d: no queries", r.Arm, r.N)
	}
	l1, err := line(p50, colP50)
	if err != nil {
		return nil, err
	}
	l2, err := line(p99, colP99)
	if err != nil {
		return nil, err
	}
	p.Add(plotter.NewGrid(), l1, l2)
	p.Legend.Add("p50", l1)
	p.Legend.Add(fmt.Sprintf("p99 (steady %.0f ms, worst 10 s %.0f ms)", r.Steady.P99Ms, r.Worst10sP99Ms), l2)
	p.Legend.Top = true
	p.Y.Min = plotFloorMs
	return p, nil
}

func statesPlot(r *Result, x0 float64, brokers int) (*plot.Plot, error) {
	p := plot.New()
	p.X.Label.Text = "seconds since the rollout began (helm upgrade)"
	p.Y.Label.Text = "pod"
	rows := brokers
	for _, sp := range r.States {
		rows = max(rows, sp.Pod+1)
	}
	for _, sp := range r.States {
		y := float64(sp.Pod)
		poly, err := plotter.NewPolygon(plotter.XYs{{X: sp.FromS - x0, Y: y - 0.35}, {X: sp.ToS - x0, Y: y - 0.35},
			{X: sp.ToS - x0, Y: y + 0.35}, {X: sp.FromS - x0, Y: y + 0.35}})
		if err != nil {
			return nil, fmt.Errorf("timeline: %w", err)
		}
		poly.Color, poly.LineStyle.Width = colState[sp.State], 0
		p.Add(poly)
	}
	for _, st := range []State{StateTerminating, StateStarting, StateWarming, StateReady} {
		poly, _ := plotter.NewPolygon(plotter.XYs{{X: 0, Y: 0}, {X: 0, Y: 0}, {X: 0, Y: 0}})
		poly.Color, poly.LineStyle.Width = colState[st], 0
		p.Legend.Add(string(st), poly)
	}
	p.Legend.Top = true
	p.NominalY(podNames(rows)...)
	p.Y.Min, p.Y.Max = -0.5, float64(rows)-0.5+0.8 // room for the legend
	return p, nil
}

func podNames(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("pod %d", i)
	}
	return out
}

// secondTicks label the time axis every 30 s, in whole seconds.
type secondTicks struct{}

func (secondTicks) Ticks(lo, hi float64) []plot.Tick {
	const step = 30.0
	var ts []plot.Tick
	for v := math.Ceil(lo/step) * step; v <= hi; v += step {
		ts = append(ts, plot.Tick{Value: v, Label: fmt.Sprintf("%.0f", v)})
	}
	return ts
}
