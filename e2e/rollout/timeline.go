package rollout

import (
	"slices"
	"sync"
	"time"
)

// Kind is what happened to a pod.
type Kind string

// The kinds, and where each comes from on the test bed (watch.go; docs/testbed.md).
const (
	// KindDeleted: the pod got a deletionTimestamp (the API server's watch): its containers get
	// SIGTERM (after any preStop) and its endpoint starts leaving the Service.
	KindDeleted Kind = "deleted"
	// KindExited: the pod object is gone, every container having exited (Killed: a container's
	// termination said SIGKILL, exit code 137 or signal 9).
	KindExited Kind = "exited"
	KindKilled Kind = "killed"
	// KindCreated: the pod's first status with a container running.
	KindCreated Kind = "created"
	// KindHealthy: the broker's /health first answered 200 (polled every 200 ms by the harness,
	// not the kubelet): the broker is up and routes every table.
	KindHealthy Kind = "healthy"
	// KindWarm: the sidecar's /readyz first answered 200 (ON pods; polled like KindHealthy).
	KindWarm Kind = "warm"
	// KindReady / KindNotReady: the pod's Ready condition turned True / False (every
	// container's readiness probe, run by the node agent as the kubelet runs them).
	KindReady    Kind = "ready"
	KindNotReady Kind = "not_ready"
	// KindInService / KindOutOfService: the load balancer started / stopped sending new requests
	// to the broker (the service proxy's entries and exits from the Service's EndpointSlices).
	KindInService    Kind = "in_service"
	KindOutOfService Kind = "out_of_service"
	// KindJIT: a reading of the broker JVM's cumulative JIT compile time (Value, seconds), from its
	// JMX exporter agent (Config.JMXAgent), every second through the pod network.
	KindJIT Kind = "jit"
	// KindBoostEnded: the broker container's CPU limit in the pod's status fell below the one it
	// started with: the node agent applied the sidecar's give-back (Detail: from → to).
	KindBoostEnded Kind = "boost_ended"
	// KindRestarted: the broker container's restart count in the pod's status grew (the node
	// agent restarted it: its liveness probe failed, or the JVM exited); Detail: the count and
	// how its last run ended.
	KindRestarted Kind = "restarted"
)

// Event is one thing that happened to one pod.
type Event struct {
	At     time.Time `json:"at"`
	Pod    int       `json:"pod"`    // ordinal
	Broker string    `json:"broker"` // the broker's query host:port
	Kind   Kind      `json:"kind"`
	// Value is a KindJIT reading; Detail what a warm or boost_ended event knows more (the
	// sidecar's outcome, the CPU limits).
	Value  float64 `json:"value,omitempty"`
	Detail string  `json:"detail,omitempty"`
	// Run is a warm event's sidecar run as its /status said (nil: not read).
	Run *SidecarRun `json:"run,omitempty"`
}

// State is a pod's place in its life, for timelines.
type State string

const (
	StateAbsent      State = "absent"      // no pod (before a scale-out, between exit and re-creation)
	StateTerminating State = "terminating" // deleted, containers still running
	StateStarting    State = "starting"    // created, broker not yet healthy
	StateWarming     State = "warming"     // broker healthy, pod not yet Ready (sidecar warming, or the readiness probe not yet passed)
	StateReady       State = "ready"       // pod Ready
)

// Timeline is every pod event, in order. Safe for concurrent use.
type Timeline struct {
	mu     sync.Mutex
	events []Event
}

func (t *Timeline) add(e Event) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.events = append(t.events, e)
}

// Events is a copy of every event so far, in time order.
func (t *Timeline) Events() []Event {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := slices.Clone(t.events)
	slices.SortStableFunc(out, func(a, b Event) int { return a.At.Compare(b.At) })
	return out
}

// StateAt is the state of the pod serving broker (host:port) at instant at, from events: what a
// client's query sent to that broker at that instant met. Part of the contract for clients that
// pick brokers themselves (the Java client's ZooKeeper selection).
func StateAt(events []Event, broker string, at time.Time) State {
	s := StateAbsent
	for _, e := range events {
		if e.Broker != broker || e.At.After(at) {
			continue
		}
		s = next(s, e.Kind)
	}
	return s
}

// next is the state after event kind.
func next(s State, k Kind) State {
	switch k {
	case KindDeleted:
		return StateTerminating
	case KindExited, KindKilled:
		return StateAbsent
	case KindCreated:
		return StateStarting
	case KindRestarted:
		if s != StateTerminating && s != StateAbsent {
			return StateStarting
		}
	case KindHealthy:
		if s == StateStarting {
			return StateWarming
		}
	case KindReady:
		if s != StateTerminating && s != StateAbsent {
			return StateReady
		}
	case KindNotReady:
		if s == StateReady {
			return StateWarming
		}
	}
	return s
}

// first is the first event of kind for pod at or after from (zero time if none).
func first(events []Event, pod int, kind Kind, from time.Time) time.Time {
	for _, e := range events {
		if e.Pod == pod && e.Kind == kind && !e.At.Before(from) {
			return e.At
		}
	}
	return time.Time{}
}
