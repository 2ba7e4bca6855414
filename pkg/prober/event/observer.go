package event

// Observer hears what a run does, one Event at a time. Calls may come from
// several goroutines at once.
type Observer interface {
	Observe(e Event)
}

// ObserverFunc adapts a function to an Observer.
type ObserverFunc func(Event)

// Observe calls f.
func (f ObserverFunc) Observe(e Event) { f(e) }

// Observers fans each event out to several observers in order.
type Observers []Observer

// Observe tells every observer.
func (os Observers) Observe(e Event) {
	for _, o := range os {
		o.Observe(e)
	}
}
