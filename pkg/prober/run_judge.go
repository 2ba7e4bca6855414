package prober

// live tells the judge which queries are still probed (some were dropped, or
// the engine is absent) and the observer how the floor now splits.
func (r *run) live(queries []string) { r.tellFloors(r.j.Live(queries)) }

// tellFloors tells the observer the engines' floors.
func (r *run) tellFloors(mse, sse int64) {
	r.p.Observer.Observe(Event{Kind: KindEngineFloors, Floors: Floors{MultiStage: mse, SingleStage: sse}})
}
