package rollout

import (
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/e2e/cluster"
	"github.com/warmup-sidecar/warmup-sidecar/e2e/haproxy"
)

// Fleet is the broker StatefulSet and its Service: one pod per broker slot of the cluster, the
// load balancer's backends following the pods' readiness as the endpoint model says.
type Fleet struct {
	c     *cluster.Cluster
	model Model
	log   *slog.Logger
	tl    *Timeline
	http  *http.Client
	work  string // sidecar logs

	mu   sync.Mutex // guards the fields below
	lb   *haproxy.LB
	pods [cluster.MaxBrokers]*pod
	// seq numbers endpoint changes per pod so a late-firing older change never undoes a newer one.
	seq, applied [cluster.MaxBrokers]int
}

// NewFleet adopts the cluster's running brokers as Ready pods without sidecars (the fleet as it
// stands before any rollout) and records them on a new timeline.
func NewFleet(c *cluster.Cluster, m Model, work string, log *slog.Logger) (*Fleet, error) {
	if err := m.check(); err != nil {
		return nil, fmt.Errorf("rollout model: %w", err)
	}
	f := &Fleet{c: c, model: m, log: log, tl: &Timeline{}, http: &http.Client{}, work: work}
	now := time.Now()
	for i := range c.Brokers() {
		b := c.Broker(i)
		if b.PID() == 0 {
			return nil, fmt.Errorf("adopt %s: not running", b.Role())
		}
		f.pods[i] = &pod{i: i, b: b, ready: true, stop: func() {}, done: closed()}
		for _, k := range []Kind{KindCreated, KindHealthy, KindReady} {
			f.tl.add(Event{At: now, Pod: i, Broker: b.Address(), Kind: k})
		}
	}
	return f, nil
}

func closed() chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}

// Timeline is every pod event since NewFleet.
func (f *Fleet) Timeline() *Timeline { return f.tl }

// Model is the fleet's Kubernetes model.
func (f *Fleet) Model() Model { return f.model }

// Size is how many pods exist now.
func (f *Fleet) Size() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, p := range f.pods {
		if p != nil {
			n++
		}
	}
	return n
}

// UseBalancer makes lb the Service and enters every Ready pod into it at once (a new Service's
// endpoints, not a change to propagate); nil detaches the fleet from any. The previous balancer
// is left to its owner.
func (f *Fleet) UseBalancer(lb *haproxy.LB) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.lb = lb
	if lb == nil {
		return nil
	}
	for i, p := range f.pods {
		if p == nil || !p.ready {
			continue
		}
		if err := lb.SetReady(serverName(i)); err != nil {
			return err
		}
		f.tl.add(Event{At: time.Now(), Pod: i, Broker: p.b.Address(), Kind: KindInService})
	}
	return nil
}

// Backends are the balancer's servers: one per broker slot, named by ordinal.
func (f *Fleet) Backends() []haproxy.Backend {
	var out []haproxy.Backend
	for i := range cluster.MaxBrokers {
		out = append(out, haproxy.Backend{Name: serverName(i), Addr: f.c.Broker(i).Address()})
	}
	return out
}

func serverName(i int) string { return fmt.Sprintf("broker-%d", i) }

// endpoint propagates pod i's membership of the Service: after the propagation delay the
// balancer starts or stops sending it new requests, unless a newer change overtook this one.
func (f *Fleet) endpoint(i int, in bool) {
	f.mu.Lock()
	f.seq[i]++
	seq := f.seq[i]
	f.mu.Unlock()
	time.AfterFunc(f.model.Propagation, func() {
		f.mu.Lock()
		defer f.mu.Unlock()
		if seq <= f.applied[i] || f.lb == nil {
			return
		}
		f.applied[i] = seq
		kind, set := KindOutOfService, f.lb.SetMaint
		if in {
			kind, set = KindInService, f.lb.SetReady
		}
		if err := set(serverName(i)); err != nil {
			f.log.Error("endpoint change failed", "pod", i, "in", in, "error", err)
			return
		}
		f.tl.add(Event{At: time.Now(), Pod: i, Broker: f.c.Broker(i).Address(), Kind: kind})
	})
}

// Close stops every pod's probes (not its containers: the cluster owns the brokers, Stop
// below the sidecars).
func (f *Fleet) Close() {
	f.mu.Lock()
	pods := f.pods
	f.mu.Unlock()
	for _, p := range pods {
		if p != nil {
			p.stop()
			<-p.done
			if p.sc != nil {
				_ = p.sc.Stop(5 * time.Second)
			}
		}
	}
}
