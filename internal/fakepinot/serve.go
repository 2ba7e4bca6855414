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

// Handler answers the fake controller's GET /tables and GET /tables/{t}/schema.
func (c *Controller) Handler() http.Handler {
	m := http.NewServeMux()
	m.HandleFunc("GET /tables", c.held(c.listTables))
	m.HandleFunc("GET /tables/{table}/schema", c.held(c.schema))
	return m
}

// SetSilent makes the controller accept every request and never answer it, as
// a controller stuck in a long GC or behind a proxy that holds connections
// does; false answers again.
func (c *Controller) SetSilent(s bool) { c.mu.Lock(); c.silent = s; c.mu.Unlock() }

// held answers through h unless the controller is silent: then the request
// waits until its client gives up or the controller closes.
func (c *Controller) held(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		c.mu.Lock()
		silent := c.silent
		c.mu.Unlock()
		if silent {
			<-r.Context().Done()
			return
		}
		h(w, r)
	}
}
