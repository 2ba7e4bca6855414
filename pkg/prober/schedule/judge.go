package schedule

import (
	"github.com/warmup-sidecar/warmup-sidecar/pkg/prober/event"

	"github.com/warmup-sidecar/warmup-sidecar/pkg/prober/plan"
)

// The judge hears the run's events before the observer does, so the events
// its evidence yields (a shape's window closed, the JIT signal's state) are
// told with them, and its verdict never lags what the observer was told.

// replan tells the judge and the observer a plan: the first, or the LIMIT 1
// fallback. The caller tells the floors it leaves (tellFloors).
func (r *Schedule) replan(pl plan.Plan) {
	e := event.Event{Kind: event.KindPlanned, Plan: pl}
	r.Judge.Observe(e, r.Now())
	r.Observer.Observe(e)
}

// drop tells the judge and the observer that a query is dropped for the rest
// of the run; the floors it leaves are told once the batch is done (tellFloors).
func (r *Schedule) drop(sql, why string) {
	e := event.Event{Kind: event.KindDropped, SQL: sql, Reason: why}
	r.Judge.Observe(e, r.Now())
	r.Observer.Observe(e)
}

// tellFloors tells the observer the engines' floors over the live queries.
func (r *Schedule) tellFloors() {
	r.Observer.Observe(event.Event{Kind: event.KindEngineFloors, Floors: r.Judge.Floors()})
}
