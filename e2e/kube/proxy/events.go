package proxy

import "time"

// Kind is what happened to an endpoint in the proxy's rotation.
type Kind string

const (
	KindEnter Kind = "enter" // its server set to ready: new requests may go to it
	KindLeave Kind = "leave" // its server set to maintenance: no new request goes to it
)

// Event is one change to the rotation, stamped when HAProxy accepted it.
type Event struct {
	At     time.Time
	Kind   Kind
	Pod    string // Endpoint.Key: the pod's namespace/name, else its address
	Slot   string // the HAProxy server
	Addr   string // pod IP:port, as the EndpointSlice gives it
	Target string // 127.0.0.1:port HAProxy sends to
	Reason string // Reason* constants, or why the Service is not proxied
}

// Member is an endpoint in rotation now.
type Member struct {
	Endpoint
	Slot  string
	Since time.Time // when it entered
}

// record appends events and replaces the current set (in slot order).
func (p *Proxy) record(evs []Event, current []Member) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.events = append(p.events, evs...)
	p.current = current
}

// Events is every change to the rotation since Run began, oldest first.
func (p *Proxy) Events() []Event {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]Event(nil), p.events...)
}

// Current is the rotation now, by slot.
func (p *Proxy) Current() []Member {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]Member(nil), p.current...)
}
