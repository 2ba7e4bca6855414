// Package rollout measures what a client sees through a broker Service during a rolling restart
// of a fleet of real Pinot brokers (e2e/cluster), each with or without the warmup sidecar beside
// it as in its pod, behind a real HAProxy (e2e/haproxy) whose backends follow the Kubernetes
// endpoint model of model.go (docs/rollout-model.md). The driver replaces the pods as a
// StatefulSet RollingUpdate does, from the highest ordinal down; the study runs every arm's
// rollouts interleaved under open-loop load (e2e/coldstart) and writes results/rollout/.
package rollout

import (
	"errors"
	"fmt"
	"time"
)

// Probe is one container's readiness probe, as the kubelet runs it.
type Probe struct {
	InitialDelay time.Duration // no probe before this, from the container's start
	Period       time.Duration
	Timeout      time.Duration // a probe without an answer by then failed
	Success      int           // consecutive successes that make a not-ready container ready
	Failure      int           // consecutive failures that make a ready container not ready
}

// BrokerProbe is the official Pinot chart's broker readinessProbe (helm/pinot, rendered in
// shared/fixtures/pinot-helm/default.yaml): GET /health on the query port.
var BrokerProbe = Probe{InitialDelay: 60 * time.Second, Period: 10 * time.Second, Timeout: 10 * time.Second, Success: 1, Failure: 10}

// SidecarProbe is this project's chart's sidecar readinessProbe (charts/pinot-broker-warmup
// values.yaml): GET /readyz.
var SidecarProbe = Probe{InitialDelay: 0, Period: 5 * time.Second, Timeout: 2 * time.Second, Success: 1, Failure: 2}

func (p Probe) check(name string) error {
	switch {
	case p.InitialDelay < 0:
		return fmt.Errorf("%s probe: initial delay %s: want ≥ 0", name, p.InitialDelay)
	case p.Period <= 0 || p.Timeout <= 0:
		return fmt.Errorf("%s probe: period %s, timeout %s: want both > 0", name, p.Period, p.Timeout)
	case p.Success < 1 || p.Failure < 1:
		return fmt.Errorf("%s probe: thresholds success %d, failure %d: want both ≥ 1", name, p.Success, p.Failure)
	}
	return nil
}

// Model is the Kubernetes behaviour the fleet follows (docs/rollout-model.md).
type Model struct {
	Broker  Probe
	Sidecar Probe
	// Propagation is how long an endpoint change (a pod turning ready or not, a pod deleted)
	// takes to reach the load balancer: the EndpointSlice controller, then kube-proxy or the
	// proxy's own watch.
	Propagation time.Duration
	// Grace is terminationGracePeriodSeconds: from deletion to SIGKILL of what still runs.
	Grace time.Duration
	// PreStop, when > 0, is a `sleep` preStop hook on the broker container: its SIGTERM comes
	// that much after the deletion (inside Grace), while the endpoint is already being removed.
	PreStop time.Duration
	// MinReady is the StatefulSet's minReadySeconds: how long a new pod must stay Ready before
	// the rollout moves on.
	MinReady time.Duration
}

// DefaultModel: the official chart's probe and grace period, this chart's sidecar probe, a 1 s
// propagation, no preStop, no minReadySeconds.
func DefaultModel() Model {
	return Model{Broker: BrokerProbe, Sidecar: SidecarProbe, Propagation: time.Second, Grace: 30 * time.Second}
}

func (m Model) check() error {
	if err := errors.Join(m.Broker.check("broker"), m.Sidecar.check("sidecar")); err != nil {
		return err
	}
	switch {
	case m.Propagation < 0:
		return fmt.Errorf("propagation %s: want ≥ 0", m.Propagation)
	case m.Grace <= 0:
		return fmt.Errorf("grace period %s: want > 0", m.Grace)
	case m.PreStop < 0 || m.PreStop >= m.Grace:
		return fmt.Errorf("preStop %s: want ≥ 0 and shorter than the grace period %s", m.PreStop, m.Grace)
	case m.MinReady < 0:
		return fmt.Errorf("minReadySeconds %s: want ≥ 0", m.MinReady)
	}
	return nil
}

// readiness is one container's readiness verdict, fed probe results: the kubelet's rule (a
// container starts not ready; Success consecutive successes make it ready, Failure consecutive
// failures make it not ready again). It does no I/O.
type readiness struct {
	p          Probe
	ready      bool
	succ, fail int
}

// observe records one probe result and reports whether the verdict changed.
func (r *readiness) observe(ok bool) bool {
	if ok {
		r.succ, r.fail = r.succ+1, 0
		if !r.ready && r.succ >= r.p.Success {
			r.ready = true
			return true
		}
		return false
	}
	r.fail, r.succ = r.fail+1, 0
	if r.ready && r.fail >= r.p.Failure {
		r.ready = false
		return true
	}
	return false
}
