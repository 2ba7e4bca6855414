package proxy

import (
	"fmt"

	"github.com/warmup-sidecar/warmup-sidecar/e2e/haproxy"
)

// Placeholder is a slot's address until an endpoint takes it: a port nothing listens on, never
// sent to (a free slot stays in maintenance).
const Placeholder = "127.0.0.1:1"

// SlotName is the HAProxy server name of slot i.
func SlotName(i int) string { return fmt.Sprintf("slot-%d", i) }

// Backends are n free slots, the servers to start HAProxy with (haproxy.Options.Backends) for a
// Proxy with Options.Slots = n. Give it one slot per pod name the Service will ever have (a
// StatefulSet's replicas, plus any it scales out to): a slot is never handed to another pod.
func Backends(n int) []haproxy.Backend {
	out := make([]haproxy.Backend, n)
	for i := range out {
		out[i] = haproxy.Backend{Name: SlotName(i), Addr: Placeholder}
	}
	return out
}

// slots hands out the pre-declared servers: an endpoint (by Key) takes the first free one the
// first time it serves and keeps it for good, so a pod that leaves and comes back reuses its
// server, and a server never moves to another pod (HAProxy would keep sending a keep-alive
// client's requests to the old pod: haproxy.LB.SetAddr).
type slots struct {
	owner []string // by slot: the endpoint key, "" while free
	byKey map[string]int
}

func newSlots(n int) *slots { return &slots{owner: make([]string, n), byKey: map[string]int{}} }

// get is key's slot, taking a free one if it has none; false when every slot is taken.
func (s *slots) get(key string) (int, bool) {
	if i, ok := s.byKey[key]; ok {
		return i, true
	}
	for i, o := range s.owner {
		if o == "" {
			s.owner[i], s.byKey[key] = key, i
			return i, true
		}
	}
	return 0, false
}
