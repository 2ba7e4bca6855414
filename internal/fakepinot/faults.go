package fakepinot

import (
	"fmt"
	"net"
	"net/http"
)

// Fault is a way a query's answer breaks below Pinot's JSON: the connection,
// not the body, goes wrong.
type Fault int

const (
	// NoFault answers normally.
	NoFault Fault = iota
	// ResetMidBody sends the headers and part of the body, then resets the
	// connection.
	ResetMidBody
	// CloseBeforeAnswer closes the connection without answering.
	CloseBeforeAnswer
)

// SetQueryFault breaks every query answer (after counting it) with f; NoFault
// answers again.
func (b *Broker) SetQueryFault(f Fault) { b.mu.Lock(); b.fault = f; b.mu.Unlock() }

func (f Fault) cut(w http.ResponseWriter) {
	if f == ResetMidBody {
		w.Header().Set("Content-Length", "4096")
		w.WriteHeader(http.StatusOK)
		fmt.Fprint(w, `{"exceptions":[],"numServersQue`)
		_ = http.NewResponseController(w).Flush()
	}
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		return
	}
	if tc, ok := conn.(*net.TCPConn); ok && f == ResetMidBody {
		_ = tc.SetLinger(0) // close with RST, not FIN
	}
	_ = conn.Close()
}
