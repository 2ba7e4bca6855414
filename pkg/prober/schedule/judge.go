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
	r.judgeThenTell(event.Event{Kind: event.KindPlanned, Plan: pl})
}

// drop tells the judge and the observer that a query is dropped for the rest
// of the run; the floors it leaves are told once the batch is done (tellFloors).
func (r *Schedule) drop(sql, why string) {
	r.judgeThenTell(event.Event{Kind: event.KindDropped, SQL: sql, Reason: why})
}

// judgeThenTell gives e to the judge, then tells the observer the events the
// judge yields (a probe's closed windows, at once: two workers closing one
// shape's windows tell them in the order they closed, as near as the observer
// can see) and e itself. A JIT reading is not told this way: the judge's answer
// replaces it (jit.go).
func (r *Schedule) judgeThenTell(e event.Event) {
	for _, y := range r.Judge.Observe(e, r.Now()) {
		r.Observer.Observe(y)
	}
	r.Observer.Observe(e)
}

// tellFloors tells the observer the engines' floors over the live queries.
func (r *Schedule) tellFloors() {
	r.Observer.Observe(event.Event{Kind: event.KindEngineFloors, Floors: r.Judge.Floors()})
}
