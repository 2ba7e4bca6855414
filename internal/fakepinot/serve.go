package fakepinot

import "net/http"

// NewUnstartedBroker is a fake broker that is GOOD, with the given routing, and
// not served: a program serves its Handler on a listener of its own
// (scripts/fakebroker). URL, Close, Down and Up need NewBroker's test server.
func NewUnstartedBroker(routing map[string]map[string][]string) *Broker {
	return &Broker{status: "GOOD", routing: routing}
}

// Handler answers every endpoint of the fake broker.
func (b *Broker) Handler() http.Handler { return b.mux() }

// NewUnstartedController is a fake controller listing tables (raw names), not
// served: a program serves its Handler itself.
func NewUnstartedController(tables ...string) *Controller {
	return &Controller{tables: tables}
}

// Handler answers the fake controller's GET /tables.
func (c *Controller) Handler() http.Handler {
	m := http.NewServeMux()
	m.HandleFunc("GET /tables", c.listTables)
	return m
}
