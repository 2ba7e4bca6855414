package testbed

import (
	"context"
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
	Dir                       string        // HAProxy's work dir
	Log                       *slog.Logger
}

// Service starts the balancer for a Service and returns once the proxy has applied the
// Service's endpoints once.
func (b *Bed) Service(ctx context.Context, o ServiceOptions) (*ServiceLB, error) {
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(ln.Addr().(*net.TCPAddr).Port))
	ln.Close()
	lb, err := haproxy.Start(ctx, haproxy.Options{WorkDir: filepath.Join(o.Dir, "haproxy"), Listen: addr,
		Backends: proxy.Backends(o.Slots), SlowStart: o.SlowStart, Logger: o.Log})
	if err != nil {
		return nil, err
	}
	client, err := b.CP.Client(controlplane.UserProxy)
	if err != nil {
		lb.Stop()
		return nil, err
	}
	p, err := proxy.New(proxy.Options{Client: client, Namespace: o.Namespace, Service: o.Name, PortName: o.PortName,
		Balancer: lb, Slots: o.Slots, Lookup: b.Net.Lookup, Log: o.Log})
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
		s.Stop()
		return nil, ctx.Err()
	}
}

// URL is the Service's address for clients.
func (s *ServiceLB) URL() string { return s.LB.URL() }

// Stop stops the proxy and the balancer; the proxy's error, if it failed, is returned.
func (s *ServiceLB) Stop() error {
	s.stop()
	err := <-s.done
	s.LB.Stop()
	return err
}
