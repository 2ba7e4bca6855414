package prober

// FloorObserver is an optional Observer extension: it hears how the floor splits
// between the engines (successful probes each must reach) when the plan is made
// and again when a dropped query changes the engines' shares, so an operator can
// see which engine a run still waits for.
type FloorObserver interface {
	EngineFloors(multiStage, singleStage int64)
}

// EngineFloors fans the event out to the observers that listen for it.
func (os Observers) EngineFloors(multiStage, singleStage int64) {
	for _, o := range os {
		if fo, ok := o.(FloorObserver); ok {
			fo.EngineFloors(multiStage, singleStage)
		}
	}
}

// floorsTold tells the observer the engines' floors as they stand.
func (r *run) floorsTold() {
	if o, ok := r.p.Observer.(FloorObserver); ok {
		o.EngineFloors(r.engineFloors())
	}
}
