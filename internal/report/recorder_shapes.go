package report

import (
	"slices"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/pkg/prober/event"
)

// ShapeStatus is one probe shape's convergence in /status.
type ShapeStatus struct {
	Shape     string  `json:"shape"`
	Probes    int     `json:"probes"`
	LatestMs  float64 `json:"latest_window_median_ms"`
	BestMs    float64 `json:"best_window_median_ms"`
	InARow    int     `json:"windows_in_a_row"`
	Converged bool    `json:"converged"`
	// Pooled: judged with the other multi-stage shapes, as one engine.
	Pooled bool `json:"pooled,omitempty"`
}

// JITStatus is the broker JVM's compile-rate signal in /status.
type JITStatus struct {
	Known       bool    `json:"known"`
	CompileRate float64 `json:"compile_rate"`
	PeakRate    float64 `json:"peak_rate"`
	QuietInARow int     `json:"quiet_readings_in_a_row"`
	Quiet       bool    `json:"quiet"`
	// Error is the last failed reading's; FailedInARow counts the failures
	// since the last good reading (the figures above are that reading's), and
	// Ignored says the run gave the signal up after too many.
	Error        string `json:"error,omitempty"`
	FailedInARow int    `json:"failed_reads_in_a_row,omitempty"`
	Ignored      bool   `json:"ignored,omitempty"`
}

// shapeWindow records a shape's state after one of its windows.
//
// Two workers can close windows of one shape at nearly the same time and tell
// it out of order; a window with fewer probes than the one shown is the older
// one and is dropped, under the board's lock so the metric and /status agree.
func (r Recorder) shapeWindow(s event.ShapeState) {
	r.Board.Update(func(st *Status) {
		i := slices.IndexFunc(st.Shapes, func(x ShapeStatus) bool { return x.Shape == s.Shape })
		switch {
		case i < 0:
			st.Shapes = append(st.Shapes, shapeStatus(s))
		case s.Probes < st.Shapes[i].Probes:
			return
		default:
			st.Shapes[i] = shapeStatus(s)
		}
		r.M.setShape(s)
	})
}

// jitRead records a reading of the JIT signal.
func (r Recorder) jitRead(s event.JITState) {
	if s.Known {
		r.M.compileRate.WithLabelValues().Set(s.Rate)
	}
	r.Board.Update(func(st *Status) {
		st.JIT = &JITStatus{Known: s.Known, CompileRate: s.Rate, PeakRate: s.Peak, QuietInARow: s.QuietInARow, Quiet: s.Quiet}
	})
}

// jitReadFailed records a failed reading the run tolerates: the last good
// reading's figures stay.
func (r Recorder) jitReadFailed(err error, inARow int) {
	r.Board.Update(func(st *Status) {
		if st.JIT == nil {
			st.JIT = &JITStatus{}
		}
		st.JIT.Error, st.JIT.FailedInARow = err.Error(), inARow
	})
}

// jitUnavailable records why the JIT signal is ignored for the run.
func (r Recorder) jitUnavailable(err error) {
	r.M.compileRate.Reset()
	r.Board.Update(func(st *Status) {
		if st.JIT == nil {
			st.JIT = &JITStatus{}
		}
		st.JIT.Error, st.JIT.Ignored = err.Error(), true
	})
}

// planShapes lists a plan's shapes in /status and the shape series. A plan told
// again within the run (the one without the multi-stage queries once the engine
// is found absent, the LIMIT 1 fallback) keeps what the shapes still planned
// showed: the judge keeps their windows too. Only the first plan of a run (the
// board's shapes emptied by StartRun) starts every series afresh.
func (r Recorder) planShapes(shapes, pooled []string) {
	r.Board.Update(func(st *Status) {
		kept := make(map[string]ShapeStatus, len(st.Shapes))
		for _, sh := range st.Shapes {
			kept[sh.Shape] = sh
		}
		if len(kept) == 0 {
			r.M.shapeLatency.Reset() // the run before's shapes
			r.M.shapeConverged.Reset()
		}
		list := make([]ShapeStatus, len(shapes))
		for i, s := range shapes {
			if sh, ok := kept[s]; ok {
				list[i] = sh
				delete(kept, s)
				continue
			}
			r.M.shapeConverged.WithLabelValues(s).Set(0)
			list[i] = ShapeStatus{Shape: s, Pooled: slices.Contains(pooled, s)}
		}
		for s := range kept { // no longer planned
			r.M.shapeLatency.DeleteLabelValues(s)
			r.M.shapeConverged.DeleteLabelValues(s)
		}
		st.Shapes = list
	})
}

func (m *Metrics) setShape(s event.ShapeState) {
	m.shapeLatency.WithLabelValues(s.Shape).Set(s.Latest.Seconds())
	v := 0.0
	if s.Converged {
		v = 1
	}
	m.shapeConverged.WithLabelValues(s.Shape).Set(v)
}

func shapeStatus(s event.ShapeState) ShapeStatus {
	return ShapeStatus{Shape: s.Shape, Probes: s.Probes, LatestMs: durationMs(s.Latest), BestMs: durationMs(s.Best),
		InARow: s.InARow, Converged: s.Converged, Pooled: s.Pooled}
}

func durationMs(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
