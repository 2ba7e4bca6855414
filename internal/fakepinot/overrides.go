package fakepinot

import (
	"fmt"
	"net/http"
)

// SetHealth makes f decide each /health answer (status and body); f may block,
// as a stalled broker does. Nil: answer from SetStatus again.
func (b *Broker) SetHealth(f func() (int, string)) { b.mu.Lock(); b.healthAnswer = f; b.mu.Unlock() }

// SetRoutingAnswer makes f decide each /debug/routingTable/{t} answer for the
// table asked; nil: answer from the routing (SetRouting) again.
func (b *Broker) SetRoutingAnswer(f func(table string) (int, string)) {
	b.mu.Lock()
	b.routingAnswer = f
	b.mu.Unlock()
}

// SetQuotaAnswer makes the broker answer /debug/tables/queryQuota/{typed} (Pinot
// ≥ 1.3) through f: Pinot answers this broker's share as a Java double, "0.0"
// for none. Nil, the default: 404, a broker without the endpoint.
func (b *Broker) SetQuotaAnswer(f func(typed string) (int, string)) {
	b.mu.Lock()
	b.quotaAnswer = f
	b.mu.Unlock()
}

// SetStartTime sets what GET /start-time answers: the broker process's start
// instant (Pinot 1.x). "", the default: 404, as Pinot 0.x answers.
func (b *Broker) SetStartTime(instant string) { b.mu.Lock(); b.started = instant; b.mu.Unlock() }

// SetStartTimeAnswer makes f decide each GET /start-time answer (after auth); f
// may block, as a stalled broker does. Nil: answer from SetStartTime again.
func (b *Broker) SetStartTimeAnswer(f func() (int, string)) {
	b.mu.Lock()
	b.startAnswer = f
	b.mu.Unlock()
}

// InFlight is the number of queries being answered now.
func (b *Broker) InFlight() int64 { return b.inFlight.Load() }

// write sends the answer f decides.
func write(w http.ResponseWriter, f func() (int, string)) {
	code, body := f()
	w.WriteHeader(code)
	fmt.Fprint(w, body)
}

func (b *Broker) queryQuota(w http.ResponseWriter, r *http.Request) {
	b.mu.Lock()
	f := b.quotaAnswer
	b.mu.Unlock()
	var answer func() (int, string)
	if f != nil {
		answer = func() (int, string) { return f(r.PathValue("table")) }
	}
	b.optional(w, r, answer)
}

func (b *Broker) startTime(w http.ResponseWriter, r *http.Request) {
	b.mu.Lock()
	st, answer := b.started, b.startAnswer
	b.mu.Unlock()
	if answer == nil && st != "" {
		answer = func() (int, string) { return http.StatusOK, st }
	}
	b.optional(w, r, answer)
}

// optional serves an endpoint older Pinot lacks: auth applies, then answer's
// answer, or 404 without one.
func (b *Broker) optional(w http.ResponseWriter, r *http.Request, answer func() (int, string)) {
	if !b.authorized(w, r) {
		return
	}
	if answer == nil {
		http.NotFound(w, r)
		return
	}
	write(w, answer)
}
