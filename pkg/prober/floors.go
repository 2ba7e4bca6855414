package prober

// floorsTold tells the observer the engines' floors as they stand.
func (r *run) floorsTold() {
	mse, sse := r.engineFloors()
	r.p.Observer.Observe(Event{Kind: KindEngineFloors, Floors: Floors{MultiStage: mse, SingleStage: sse}})
}
