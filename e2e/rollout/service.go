package rollout

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/e2e/kube/testbed"
)

// serviceSlots: one HAProxy server per pod name the Service will have (the proxy never hands a
// slot to another pod): the fleet, plus the scale-out's pod.
func (c Config) serviceSlots() int {
	if c.ScaleOut {
		return c.Brokers + 1
	}
	return c.Brokers
}

// startService is the broker Service's load balancer for one event: a fresh HAProxy (slowstart is
// fixed at its start) on the cluster's balancer port, fed by the service proxy (kube-proxy's
// stand-in) from the chart's Service and its EndpointSlices. It returns once the proxy has put
// every Ready broker pod (want of them) in rotation.
func (b *bed) startService(ctx context.Context, dir string, slowStart time.Duration, want int) (*testbed.ServiceLB, error) {
	s, err := b.Service(ctx, testbed.ServiceOptions{
		Namespace: namespace, Name: brokerService, PortName: b.portName, Slots: b.cfg.serviceSlots(),
		SlowStart: slowStart, ServerTimeout: 60 * time.Second, MinSyncPeriod: b.cfg.ProxySync,
		Listen: net.JoinHostPort("127.0.0.1", strconv.Itoa(b.pinot.Ports().Balancer)),
		Dir:    dir, Log: b.log.With("component", "proxy"),
	})
	if err != nil {
		return nil, err
	}
	if err := s.WaitInRotation(ctx, want, time.Minute); err != nil {
		_, _ = s.Stop()
		return nil, fmt.Errorf("%w; pods: %s", err, b.podsSummary())
	}
	return s, nil
}
