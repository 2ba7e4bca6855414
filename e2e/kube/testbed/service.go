package testbed

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"path/filepath"
	"strconv"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/e2e/haproxy"
	"github.com/warmup-sidecar/warmup-sidecar/e2e/kube/controlplane"
	"github.com/warmup-sidecar/warmup-sidecar/e2e/kube/proxy"
)

// ServiceLB is a Service as a client reaches it here: a real HAProxy whose servers the service
// proxy (kube-proxy's stand-in) sets from the Service's EndpointSlices.
type ServiceLB struct {
	LB    *haproxy.LB
	Proxy *proxy.Proxy
	stop  context.CancelFunc
	done  chan error
}

// ServiceOptions say which Service and how its balancer behaves.
type ServiceOptions struct {
	Namespace, Name, PortName string
	Slots                     int           // one per pod name the Service will ever have
	SlowStart                 time.Duration // HAProxy slowstart (0: none)
	// ServerTimeout bounds one request at HAProxy's server side (0: package haproxy's default).
	ServerTimeout time.Duration
	// MinSyncPeriod spaces the proxy's changes as kube-proxy's sync period does (0: each at once).
	MinSyncPeriod time.Duration
	Listen        string // the balancer's host:port ("": a free loopback port)
	Dir           string // HAProxy's work dir
	Log           *slog.Logger
}

// Service starts the balancer for a Service and returns once the proxy has applied the
// Service's endpoints once.
func (b *Bed) Service(ctx context.Context, o ServiceOptions) (*ServiceLB, error) {
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	addr := o.Listen
	if addr == "" {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		addr = net.JoinHostPort("127.0.0.1", strconv.Itoa(ln.Addr().(*net.TCPAddr).Port))
		ln.Close()
	}
	lb, err := haproxy.Start(ctx, haproxy.Options{WorkDir: filepath.Join(o.Dir, "haproxy"), Listen: addr,
		Backends: proxy.Backends(o.Slots), SlowStart: o.SlowStart, ServerTimeout: o.ServerTimeout, Logger: o.Log})
	if err != nil {
		return nil, err
	}
	client, err := b.CP.Client(controlplane.UserProxy)
	if err != nil {
		lb.Stop()
		return nil, err
	}
	p, err := proxy.New(proxy.Options{Client: client, Namespace: o.Namespace, Service: o.Name, PortName: o.PortName,
		Balancer: lb, Slots: o.Slots, Lookup: b.Net.Lookup, MinSyncPeriod: o.MinSyncPeriod, Log: o.Log})
	if err != nil {
		lb.Stop()
		return nil, err
	}
	runCtx, cancel := context.WithCancel(context.Background())
	s := &ServiceLB{LB: lb, Proxy: p, stop: cancel, done: make(chan error, 1)}
	go func() { s.done <- p.Run(runCtx) }()
	select {
	case <-p.Synced():
		return s, nil
	case err := <-s.done:
		cancel()
		lb.Stop()
		return nil, fmt.Errorf("service proxy for %s/%s: %v", o.Namespace, o.Name, err)
	case <-ctx.Done():
		_, _ = s.Stop()
		return nil, ctx.Err()
	}
}

// URL is the Service's address for clients.
func (s *ServiceLB) URL() string { return s.LB.URL() }

// WaitInRotation waits until the proxy has n endpoints in rotation, the proxy stops (its error),
// ctx ends or timeout passes.
func (s *ServiceLB) WaitInRotation(ctx context.Context, n int, timeout time.Duration) error {
	deadline := time.After(timeout)
	for len(s.Proxy.Current()) < n {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case err := <-s.done:
			s.done <- err // Stop reads it
			return fmt.Errorf("service proxy stopped with %d of %d endpoints in rotation: %v", len(s.Proxy.Current()), n, err)
		case <-deadline:
			return fmt.Errorf("service proxy: %d of %d endpoints in rotation after %s", len(s.Proxy.Current()), n, timeout)
		case <-time.After(50 * time.Millisecond):
		}
	}
	return nil
}

// Stop stops the proxy and the balancer and returns the proxy's entries and exits, and its error
// if it failed (a change HAProxy refused).
func (s *ServiceLB) Stop() ([]proxy.Event, error) {
	s.stop()
	err := <-s.done
	s.LB.Stop()
	if errors.Is(err, context.Canceled) {
		err = nil
	}
	return s.Proxy.Events(), err
}
