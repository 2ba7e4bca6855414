package prober

import (
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/pkg/pinot"
)

// Observer hears what a run does. Calls may come from several goroutines at once.
type Observer interface {
	// Planned is called once per run when the probe targets are known.
	Planned(p Plan)
	// PlanRetry is called when no plan could be made yet and the run backs off.
	PlanRetry(err error)
	// Probed is called after every probe.
	Probed(e ProbeEvent)
	// QueryDropped is called once when a query (custom, or a generated shape's)
	// is dropped for the rest of the run: the broker cannot compile it, or it
	// never succeeds (giveup.go). reason says which, in the broker's words.
	QueryDropped(sql, reason string)
}

// ProbeEvent is one finished probe.
type ProbeEvent struct {
	// SQL is the query sent.
	SQL string
	// Step is "no_scatter" for the broker-only step, "probe" for floor probes.
	Step string
	// Result is the classified answer.
	Result pinot.Result
	// Latency is the probe's round trip as the sidecar saw it.
	Latency time.Duration
	// MultiStage is true for a probe of the multi-stage engine (a leading SET),
	// as the plan found it once.
	MultiStage bool
}

// Step names.
const (
	StepNoScatter = "no_scatter"
	StepProbe     = "probe"
)

// ShapeObserver is an optional Observer extension: it hears a shape's
// convergence state each time one of its windows of probes completes.
type ShapeObserver interface {
	ShapeWindow(s ShapeState)
}

// Observers fans events out to several observers in order.
type Observers []Observer

// Planned tells every observer.
func (os Observers) Planned(p Plan) {
	for _, o := range os {
		o.Planned(p)
	}
}

// PlanRetry tells every observer.
func (os Observers) PlanRetry(err error) {
	for _, o := range os {
		o.PlanRetry(err)
	}
}

// Probed tells every observer.
func (os Observers) Probed(e ProbeEvent) {
	for _, o := range os {
		o.Probed(e)
	}
}

// QueryDropped tells every observer.
func (os Observers) QueryDropped(sql, reason string) {
	for _, o := range os {
		o.QueryDropped(sql, reason)
	}
}

// ShapeWindow fans the event out to the observers that listen for it.
func (os Observers) ShapeWindow(s ShapeState) {
	for _, o := range os {
		if so, ok := o.(ShapeObserver); ok {
			so.ShapeWindow(s)
		}
	}
}
