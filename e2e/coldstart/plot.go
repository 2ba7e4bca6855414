package coldstart

import (
	"bytes"
	"fmt"
	"image/color"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// PlotRun is one restart to draw.
type PlotRun struct {
	Title string // e.g. "off (restart 3 of 5, median cold cancellations)"
	Trace *Trace
}

// PlotOptions frame the figure.
type PlotOptions struct {
	Cold, Warm Window
	End        time.Duration // x-axis end; 0: the last scheduled arrival
}

var (
	colOK        = color.NRGBA{R: 31, G: 119, B: 180, A: 110}
	colCancelled = color.NRGBA{R: 214, G: 39, B: 40, A: 200}
	colError     = color.NRGBA{R: 255, G: 127, B: 14, A: 200}
	colWindow    = color.NRGBA{R: 120, G: 120, B: 120, A: 35}
	colInflight  = color.NRGBA{R: 44, G: 160, B: 44, A: 255}
)

// Latency below this is drawn at it: the y axis is logarithmic.
const plotFloorMs = 0.5

// PlotPNG draws one row per run: latency of every query against its send time since Ready
// (log scale; cancellations in red at the timeout, errors in orange), and beside it the
// exact in-flight count. Shaded bands are the cold and warm windows.
func PlotPNG(runs []PlotRun, o PlotOptions) ([]byte, error) {
	if len(runs) == 0 {
		return nil, fmt.Errorf("plot: no runs")
	}
	end := o.End
	for _, r := range runs {
		if n := len(r.Trace.Records); o.End == 0 && n > 0 {
			end = max(end, r.Trace.Records[n-1].Scheduled+r.Trace.Timeout)
		}
	}
	grid := make([][]*plot.Plot, len(runs))
	for i, r := range runs {
		lat, err := latencyPlot(r, o, end)
		if err != nil {
			return nil, err
		}
		inf, err := inflightPlot(r, o, end)
		if err != nil {
			return nil, err
		}
		if i < len(runs)-1 {
			lat.X.Label.Text, inf.X.Label.Text = "", ""
		}
		grid[i] = []*plot.Plot{lat, inf}
	}
	const colW, rowH = 7 * vg.Inch, 2.6 * vg.Inch
	img := vgimg.New(2*colW, vg.Length(len(runs))*rowH)
	dc := draw.New(img)
	tiles := draw.Tiles{Rows: len(runs), Cols: 2, PadX: 0.3 * vg.Inch, PadY: 0.15 * vg.Inch,
		PadTop: 0.1 * vg.Inch, PadBottom: 0.1 * vg.Inch, PadLeft: 0.1 * vg.Inch, PadRight: 0.2 * vg.Inch}
	canvases := plot.Align(grid, tiles, dc)
	for i := range grid {
		for j := range grid[i] {
			grid[i][j].Draw(canvases[i][j])
		}
	}
	var buf bytes.Buffer
	if _, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(&buf); err != nil {
		return nil, fmt.Errorf("plot: encoding PNG: %w", err)
	}
	return buf.Bytes(), nil
}

// WritePlot writes PlotPNG to path.
func WritePlot(path string, runs []PlotRun, o PlotOptions) error {
	b, err := PlotPNG(runs, o)
	if err != nil {
		return err
	}
	return writeFile(path, b)
}

func latencyPlot(r PlotRun, o PlotOptions, end time.Duration) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = r.Title + ": latency"
	p.X.Label.Text = "seconds since Ready (send time)"
	p.Y.Label.Text = "round trip (ms)"
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	timeoutMs := ms(r.Trace.Timeout)
	p.X.Min, p.X.Max = 0, end.Seconds()
	p.Y.Min, p.Y.Max = plotFloorMs, timeoutMs*1.6
	if err := addWindows(p, o, plotFloorMs, timeoutMs*1.6); err != nil {
		return nil, err
	}
	var ok, cancelled, failed plotter.XYs
	for _, rec := range r.Trace.Records {
		xy := plotter.XY{X: rec.Sent.Seconds(), Y: max(ms(rec.Latency), plotFloorMs)}
		switch rec.Outcome {
		case OutcomeOK:
			ok = append(ok, xy)
		case OutcomeCancelled:
			xy.Y = timeoutMs
			cancelled = append(cancelled, xy)
		default:
			failed = append(failed, xy)
		}
	}
	for _, s := range []struct {
		xys   plotter.XYs
		col   color.Color
		label string
	}{{ok, colOK, "ok"}, {failed, colError, "error"}, {cancelled, colCancelled, "cancelled (> timeout)"}} {
		if len(s.xys) == 0 {
			continue
		}
		sc, err := plotter.NewScatter(s.xys)
		if err != nil {
			return nil, fmt.Errorf("plot: %w", err)
		}
		sc.GlyphStyle = draw.GlyphStyle{Color: s.col, Radius: vg.Points(1), Shape: draw.CircleGlyph{}}
		p.Add(sc)
		p.Legend.Add(fmt.Sprintf("%s (%d)", s.label, len(s.xys)), sc)
	}
	p.Legend.Top = true
	p.Add(plotter.NewGrid())
	// Add widens the axes to its data (an arrival sent late by a lagging generator): keep the frame.
	p.X.Min, p.X.Max = 0, end.Seconds()
	p.Y.Min, p.Y.Max = plotFloorMs, timeoutMs*1.6
	return p, nil
}

func inflightPlot(r PlotRun, o PlotOptions, end time.Duration) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = r.Title + ": in flight"
	p.X.Label.Text = "seconds since Ready"
	p.Y.Label.Text = "queries in flight"
	series := InflightSeries(r.Trace, 50*time.Millisecond, end)
	xys := make(plotter.XYs, len(series))
	top := 1.0
	for i, pt := range series {
		xys[i] = plotter.XY{X: pt.At.Seconds(), Y: float64(pt.Inflight)}
		top = max(top, float64(pt.Inflight))
	}
	p.X.Min, p.X.Max = 0, end.Seconds()
	p.Y.Min, p.Y.Max = 0, top*1.1
	if err := addWindows(p, o, 0, top*1.1); err != nil {
		return nil, err
	}
	line, err := plotter.NewLine(xys)
	if err != nil {
		return nil, fmt.Errorf("plot: %w", err)
	}
	line.Color = colInflight
	line.Width = vg.Points(1)
	p.Add(line, plotter.NewGrid())
	p.X.Min, p.X.Max = 0, end.Seconds()
	return p, nil
}

// addWindows shades the cold and warm windows between y0 and y1.
func addWindows(p *plot.Plot, o PlotOptions, y0, y1 float64) error {
	for _, w := range []Window{o.Cold, o.Warm} {
		if w.End <= w.Start {
			continue
		}
		a, b := w.Start.Seconds(), w.End.Seconds()
		poly, err := plotter.NewPolygon(plotter.XYs{{X: a, Y: y0}, {X: b, Y: y0}, {X: b, Y: y1}, {X: a, Y: y1}})
		if err != nil {
			return fmt.Errorf("plot: %w", err)
		}
		poly.Color = colWindow
		poly.LineStyle.Width = 0
		p.Add(poly)
	}
	return nil
}
