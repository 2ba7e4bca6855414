package rollout

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/e2e/haproxy"
	"github.com/warmup-sidecar/warmup-sidecar/e2e/kube/proxy"
)

// service is the broker Service's load balancer for one event: a fresh HAProxy (slowstart is
// fixed at its start) on the cluster's balancer port, fed by the service proxy (kube-proxy's
// stand-in) from the chart's Service and its EndpointSlices.
type service struct {
	lb   *haproxy.LB
	p    *proxy.Proxy
	stop context.CancelFunc
	done chan error
}

// serviceSlots: one HAProxy server per pod name the Service will have (the proxy never hands a
// slot to another pod): the fleet, plus the scale-out's pod.
func (c Config) serviceSlots() int {
	if c.ScaleOut {
		return c.Brokers + 1
	}
	return c.Brokers
}

// startService starts HAProxy and the proxy, and returns once the proxy has put every Ready
// broker pod (want of them) in rotation.
func (b *bed) startService(ctx context.Context, dir string, slowStart time.Duration, want int) (*service, error) {
	lb, err := haproxy.Start(ctx, haproxy.Options{WorkDir: dir,
		Listen:   net.JoinHostPort("127.0.0.1", strconv.Itoa(b.pinot.Ports().Balancer)),
		Backends: proxy.Backends(b.cfg.serviceSlots()), SlowStart: slowStart, ServerTimeout: 60 * time.Second, Logger: b.log})
	if err != nil {
		return nil, err
	}
	p, err := proxy.New(proxy.Options{Client: b.asProxy, Namespace: namespace, Service: brokerService, PortName: b.portName,
		Balancer: lb, Slots: b.cfg.serviceSlots(), Lookup: b.Net.Lookup, MinSyncPeriod: b.cfg.ProxySync,
		Log: b.log.With("component", "proxy")})
	if err != nil {
		lb.Stop()
		return nil, err
	}
	runCtx, cancel := context.WithCancel(context.Background())
	s := &service{lb: lb, p: p, stop: cancel, done: make(chan error, 1)}
	go func() { s.done <- p.Run(runCtx) }()
	deadline := time.After(time.Minute)
	for len(p.Current()) < want {
		select {
		case <-ctx.Done():
			s.close()
			return nil, ctx.Err()
		case err := <-s.done:
			s.done <- err
			s.close()
			return nil, fmt.Errorf("service proxy stopped before the brokers were in rotation: %w", err)
		case <-deadline:
			n := len(p.Current())
			s.close()
			return nil, fmt.Errorf("service proxy: %d of %d broker pods in rotation after a minute; pods: %s", n, want, b.podsSummary())
		case <-time.After(50 * time.Millisecond):
		}
	}
	return s, nil
}

// URL is the Service's address for clients.
func (s *service) URL() string { return s.lb.URL() }

// close stops the proxy and HAProxy and returns the proxy's events and the error it stopped
// with (a change HAProxy refused), if any.
func (s *service) close() ([]proxy.Event, error) {
	s.stop()
	err := <-s.done
	s.lb.Stop()
	if errors.Is(err, context.Canceled) {
		err = nil
	}
	return s.p.Events(), err
}
