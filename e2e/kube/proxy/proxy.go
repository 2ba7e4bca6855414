package proxy

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	coreinformers "k8s.io/client-go/informers/core/v1"
	discoveryinformers "k8s.io/client-go/informers/discovery/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
)

// Balancer is the load balancer the proxy programs: *haproxy.LB.
type Balancer interface {
	SetAddr(server, ip string, port int) error
	SetReady(server string) error
	SetMaint(server string) error
}

// Options configure a Proxy.
type Options struct {
	// Client reads the Service and its EndpointSlices: give it kube-proxy's identity
	// (controlplane.UserProxy), so RBAC judges the reads as it judges kube-proxy's.
	Client    kubernetes.Interface
	Namespace string
	Service   string
	// PortName is the Service port proxied ("broker" in the Pinot chart; "" for an unnamed one).
	PortName string
	// Balancer's servers are Backends(Slots), each in maintenance until an endpoint takes it.
	Balancer Balancer
	Slots    int
	// Lookup translates a pod address to its loopback address (podnet.Network.Lookup).
	Lookup Lookup
	// MinSyncPeriod spaces the changes applied, as kube-proxy's --iptables-min-sync-period
	// (default 1 s) does: a change arriving sooner after the last waits, and changes arriving
	// meanwhile are applied together. 0: each change as it arrives.
	MinSyncPeriod time.Duration
	Log           *slog.Logger     // nil: discard
	Now           func() time.Time // stamps events; nil: time.Now
}

func (o Options) check() error {
	switch {
	case o.Client == nil:
		return errors.New("proxy: Client: want a clientset (kube-proxy's identity)")
	case o.Namespace == "" || o.Service == "":
		return fmt.Errorf("proxy: Namespace %q, Service %q: want both", o.Namespace, o.Service)
	case o.Balancer == nil:
		return errors.New("proxy: Balancer: want one (*haproxy.LB)")
	case o.Slots < 1:
		return fmt.Errorf("proxy: Slots %d: want ≥ 1", o.Slots)
	case o.Lookup == nil:
		return errors.New("proxy: Lookup: want the pod network's (podnet.Network.Lookup)")
	case o.MinSyncPeriod < 0:
		return fmt.Errorf("proxy: MinSyncPeriod %s: want ≥ 0", o.MinSyncPeriod)
	}
	return nil
}

// Proxy is kube-proxy's stand-in for one Service port.
type Proxy struct {
	o       Options
	slots   *slots
	applied []slotState     // by slot; only Run's sync goroutine touches it
	warned  map[string]bool // endpoints logged as unreachable or slotless, so each is logged once
	synced  chan struct{}
	ran     atomic.Bool

	mu      sync.Mutex // guards the fields below
	events  []Event
	current []Member
}

// slotState is what HAProxy was last told about a slot.
type slotState struct {
	ep     Endpoint // the endpoint in it (valid once target is set)
	target string   // the address set, "" = still Placeholder
	ready  bool
	since  time.Time
}

// New checks o; Run starts the proxy.
func New(o Options) (*Proxy, error) {
	if err := o.check(); err != nil {
		return nil, err
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return &Proxy{o: o, slots: newSlots(o.Slots), applied: make([]slotState, o.Slots),
		warned: map[string]bool{}, synced: make(chan struct{})}, nil
}

// Synced is closed once the proxy has read the Service and its EndpointSlices and applied them.
func (p *Proxy) Synced() <-chan struct{} { return p.synced }

// Run watches the Service and its EndpointSlices and keeps the balancer's servers to the
// endpoints kube-proxy would send the Service's traffic to, until ctx ends (then nil) or the
// balancer refuses a change (then that error). Once per Proxy.
func (p *Proxy) Run(ctx context.Context) error {
	if p.ran.Swap(true) {
		return errors.New("proxy: Run called twice")
	}
	byName := func(o *metav1.ListOptions) {
		o.FieldSelector = fields.OneTermEqualSelector("metadata.name", p.o.Service).String()
	}
	bySvc := func(o *metav1.ListOptions) { o.LabelSelector = discoveryv1.LabelServiceName + "=" + p.o.Service }
	svcs := coreinformers.NewFilteredServiceInformer(p.o.Client, p.o.Namespace, 0, nil, byName)
	eps := discoveryinformers.NewFilteredEndpointSliceInformer(p.o.Client, p.o.Namespace, 0, nil, bySvc)

	// One pending sync at most: a sync reads the caches' latest state, so changes arriving
	// before it runs are applied together.
	kick := make(chan struct{}, 1)
	poke := func() {
		select {
		case kick <- struct{}{}:
		default:
		}
	}
	h := cache.ResourceEventHandlerFuncs{
		AddFunc:    func(any) { poke() },
		UpdateFunc: func(any, any) { poke() },
		DeleteFunc: func(any) { poke() },
	}
	for _, inf := range []cache.SharedIndexInformer{svcs, eps} {
		if _, err := inf.AddEventHandler(h); err != nil {
			return fmt.Errorf("proxy: watch handler: %w", err)
		}
		// Else client-go's default handler logs through klog; a watch keeps retrying either way.
		if err := inf.SetWatchErrorHandlerWithContext(func(_ context.Context, r *cache.Reflector, err error) {
			p.o.Log.Warn("proxy: watch failed; retrying", "watch", r.TypeDescription(), "error", err)
		}); err != nil {
			return fmt.Errorf("proxy: watch error handler: %w", err)
		}
	}

	g, ctx := errgroup.WithContext(ctx)
	g.Go(func() error { svcs.RunWithContext(ctx); return nil })
	g.Go(func() error { eps.RunWithContext(ctx); return nil })
	g.Go(func() error {
		if !cache.WaitForCacheSync(ctx.Done(), svcs.HasSynced, eps.HasSynced) {
			return nil // ctx ended first
		}
		// The balancer's servers start in maintenance (haproxy.Config); say so again rather than
		// trust it, so that a slot is ready only once this proxy entered it.
		for i := range p.applied {
			if err := p.o.Balancer.SetMaint(SlotName(i)); err != nil {
				return fmt.Errorf("proxy: reset %s to maintenance: %w", SlotName(i), err)
			}
		}
		for first := true; ; first = false {
			if err := p.sync(p.service(svcs.GetStore()), p.slices(eps.GetStore())); err != nil {
				return err
			}
			if first {
				close(p.synced)
			}
			last := time.Now()
			select {
			case <-ctx.Done():
				return nil
			case <-kick:
			}
			if wait := p.o.MinSyncPeriod - time.Since(last); wait > 0 {
				t := time.NewTimer(wait)
				select {
				case <-ctx.Done():
					t.Stop()
					return nil
				case <-t.C:
				}
			}
		}
	})
	return g.Wait()
}

// service is the watched Service, if it exists. The informer lists by name already; the check
// keeps a client that ignores field selectors (the fake clientset) from mixing in others.
func (p *Proxy) service(s cache.Store) *corev1.Service {
	for _, o := range s.List() {
		if svc, ok := o.(*corev1.Service); ok && svc.Name == p.o.Service {
			return svc
		}
	}
	return nil
}

// slices are the Service's EndpointSlices (filtered again for the same reason as service).
func (p *Proxy) slices(s cache.Store) []*discoveryv1.EndpointSlice {
	var out []*discoveryv1.EndpointSlice
	for _, o := range s.List() {
		if es, ok := o.(*discoveryv1.EndpointSlice); ok && es.Labels[discoveryv1.LabelServiceName] == p.o.Service {
			out = append(out, es)
		}
	}
	return out
}

// sync applies kube-proxy's choice of endpoints for the Service to the balancer.
func (p *Proxy) sync(svc *corev1.Service, slices []*discoveryv1.EndpointSlice) error {
	port, svcReason, proxied := ServicePort(svc, p.o.PortName)
	var eps []Endpoint
	if proxied {
		eps = Select(slices, p.o.PortName, port.Protocol, p.o.Lookup)
	}
	want := make([]*Endpoint, len(p.applied)) // by slot
	byKey := map[string]Endpoint{}
	warned := map[string]bool{}
	if !proxied {
		p.warnOnce(warned, "service "+svcReason, "proxy: the Service is not proxied", "reason", svcReason)
	}
	for _, ep := range eps {
		k := ep.Key()
		if _, dup := byKey[k]; dup {
			p.warnOnce(warned, "dup "+ep.Addr(), "proxy: a second address for one pod; left out", "pod", k, "addr", ep.Addr())
			continue
		}
		byKey[k] = ep
		if ep.Reason == ReasonUnknown {
			p.warnOnce(warned, "unknown "+ep.Addr(), "proxy: endpoint not in the pod network; left out", "pod", k, "addr", ep.Addr())
		}
		if !ep.Serve {
			continue
		}
		i, ok := p.slots.get(k)
		if !ok {
			p.warnOnce(warned, "slot "+k, "proxy: no free server slot; endpoint left out", "pod", k, "addr", ep.Addr(), "slots", len(p.applied))
			continue
		}
		want[i] = &ep
	}
	p.warned = warned

	var evs []Event
	// Enter endpoints first, then take others out: a replacement is in rotation before its
	// predecessor leaves, as kube-proxy swaps a Service's rules in one transaction.
	for i, w := range want {
		if w != nil && !p.applied[i].ready {
			ev, err := p.enter(i, *w)
			if err != nil {
				return err
			}
			evs = append(evs, ev)
		}
	}
	for i, w := range want {
		a := p.applied[i]
		if !a.ready || w != nil && w.Target == a.target {
			continue
		}
		reason := ReasonRemoved
		switch ep, ok := byKey[a.ep.Key()]; {
		case !proxied:
			reason = svcReason
		case w != nil:
			reason = ReasonAddrChanged
		case ok:
			reason = ep.Reason
		}
		ev, err := p.leave(i, reason)
		if err != nil {
			return err
		}
		evs = append(evs, ev)
		if w != nil {
			if ev, err = p.enter(i, *w); err != nil {
				return err
			}
			evs = append(evs, ev)
		}
	}
	var current []Member
	for i, a := range p.applied {
		if a.ready {
			ep := a.ep
			if w := want[i]; w != nil {
				ep = *w // the latest conditions: ready, or a terminating fallback
			}
			current = append(current, Member{Endpoint: ep, Slot: SlotName(i), Since: a.since})
		}
	}
	p.record(evs, current)
	return nil
}

func (p *Proxy) warnOnce(now map[string]bool, key, msg string, args ...any) {
	now[key] = true
	if !p.warned[key] {
		p.o.Log.Warn(msg, append(args, "service", p.o.Namespace+"/"+p.o.Service)...)
	}
}

// enter points slot i at ep (while in maintenance, so a slow start begins at ready) and readies it.
func (p *Proxy) enter(i int, ep Endpoint) (Event, error) {
	name := SlotName(i)
	a := &p.applied[i]
	if a.target != ep.Target {
		host, portS, err := net.SplitHostPort(ep.Target)
		port, perr := strconv.Atoi(portS)
		if err != nil || perr != nil {
			return Event{}, fmt.Errorf("proxy: %s: pod network address %q: want ip:port", ep.Key(), ep.Target)
		}
		if err := p.o.Balancer.SetAddr(name, host, port); err != nil {
			return Event{}, fmt.Errorf("proxy: point %s at %s (%s): %w", name, ep.Key(), ep.Target, err)
		}
		a.target = ep.Target
	}
	a.ep = ep
	if err := p.o.Balancer.SetReady(name); err != nil {
		return Event{}, fmt.Errorf("proxy: enter %s (%s): %w", ep.Key(), name, err)
	}
	a.ready, a.since = true, p.o.Now()
	p.o.Log.Info("proxy: endpoint entered", "pod", ep.Key(), "slot", name, "addr", ep.Addr(), "target", ep.Target, "reason", ep.Reason)
	return Event{At: a.since, Kind: KindEnter, Pod: ep.Key(), Slot: name, Addr: ep.Addr(), Target: ep.Target, Reason: ep.Reason}, nil
}

// leave puts slot i in maintenance.
func (p *Proxy) leave(i int, reason string) (Event, error) {
	name := SlotName(i)
	a := &p.applied[i]
	if err := p.o.Balancer.SetMaint(name); err != nil {
		return Event{}, fmt.Errorf("proxy: take %s (%s) out: %w", a.ep.Key(), name, err)
	}
	a.ready = false
	p.o.Log.Info("proxy: endpoint left", "pod", a.ep.Key(), "slot", name, "addr", a.ep.Addr(), "reason", reason)
	return Event{At: p.o.Now(), Kind: KindLeave, Pod: a.ep.Key(), Slot: name, Addr: a.ep.Addr(), Target: a.target, Reason: reason}, nil
}
