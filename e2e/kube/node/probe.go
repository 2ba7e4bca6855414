package node

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// probeKind is which of a container's probes.
type probeKind string

const (
	probeStartup   probeKind = "startup"
	probeReadiness probeKind = "readiness"
	probeLiveness  probeKind = "liveness"
)

// result is a probe's verdict, as the kubelet's results manager holds it.
type result int

const (
	resultUnknown result = iota
	resultSuccess
	resultFailure
)

func (r result) String() string {
	return [...]string{"unknown", "success", "failure"}[r]
}

// probeRules is the kubelet prober worker's decision, kept apart from any I/O (the kubelet's
// pkg/kubelet/prober/worker.go doProbe): fed what the container is doing and, when a probe ran,
// its outcome; it says what the container's result is now. Like the kubelet's worker it lives as
// long as the pod's container, across the container's instances.
type probeRules struct {
	kind probeKind
	spec *corev1.Probe

	containerID string // the container instance the result belongs to
	result      result // what the results manager holds
	last        result // the last probe outcome
	run         int    // consecutive probes with that outcome
	onHold      bool   // liveness/startup failed: the container is being restarted
	// trigger runs the probe now (the kubelet's manualTriggerCh), restarting its ticker.
	trigger chan struct{}
}

func newProbeRules(kind probeKind, spec *corev1.Probe) *probeRules {
	return &probeRules{kind: kind, spec: spec, trigger: make(chan struct{}, 1)}
}

// initial is the result a new container starts with: not ready, alive, not yet started.
func (k probeKind) initial() result {
	switch k {
	case probeReadiness:
		return resultFailure
	case probeLiveness:
		return resultSuccess
	default:
		return resultUnknown
	}
}

// containerView is what a probe worker sees of its container at a tick.
type containerView struct {
	ID        string // "" before the first start
	Running   bool
	StartedAt time.Time
	Started   bool // the startup probe has succeeded (or there is none)
	Deleting  bool // the pod has a deletion timestamp
}

// shouldProbe says whether this tick runs the probe, applying the kubelet's gates in its order:
// a new instance resets the result (not the run of outcomes: the kubelet's lastResult and
// resultRun carry over), a held worker waits for the restart, a container that is not running is
// not ready, liveness and startup stop judging a terminating pod, the initial delay counts whole
// seconds since the container started, and startup gates the others.
func (w *probeRules) shouldProbe(now time.Time, c containerView) bool {
	if c.ID == "" {
		return false
	}
	if c.ID != w.containerID {
		w.containerID, w.result, w.onHold = c.ID, w.kind.initial(), false
	}
	if w.onHold {
		return false
	}
	if !c.Running {
		w.result = resultFailure
		return false
	}
	if c.Deleting && (w.kind == probeLiveness || w.kind == probeStartup) {
		w.result = resultSuccess
		return false
	}
	if int32(now.Sub(c.StartedAt).Seconds()) < w.spec.InitialDelaySeconds {
		return false
	}
	if c.Started {
		return w.kind != probeStartup
	}
	return w.kind == probeStartup
}

// record feeds one probe outcome; it returns whether the held result changed. Only
// FailureThreshold failures or SuccessThreshold successes in a row change it; a liveness failure
// or any startup verdict puts the worker on hold until the container is replaced.
func (w *probeRules) record(outcome result) bool {
	if outcome == w.last {
		w.run++
	} else {
		w.last, w.run = outcome, 1
	}
	if (outcome == resultFailure && w.run < int(w.spec.FailureThreshold)) ||
		(outcome == resultSuccess && w.run < int(w.spec.SuccessThreshold)) {
		return false
	}
	changed := w.result != outcome
	w.result = outcome
	if (w.kind == probeLiveness && outcome == resultFailure) || w.kind == probeStartup {
		w.onHold, w.run = true, 0
	}
	return changed
}

// prober performs one probe against a container of the pod.
type prober struct {
	// addr translates the pod's (port) to where it is served on loopback.
	addr      func(port int32) (string, error)
	userAgent string
}

// do runs the probe's handler once within its timeout. Exec and gRPC handlers cannot run here
// (there is no container to exec into): they fail, with the reason.
func (p prober) do(ctx context.Context, spec *corev1.Probe, ports []corev1.ContainerPort) (result, string) {
	timeout := time.Duration(spec.TimeoutSeconds) * time.Second
	if timeout <= 0 {
		timeout = time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	switch {
	case spec.HTTPGet != nil:
		return p.http(ctx, spec.HTTPGet, ports)
	case spec.TCPSocket != nil:
		port, err := resolvePort(spec.TCPSocket.Port, ports)
		if err != nil {
			return resultFailure, err.Error()
		}
		addr, err := p.addr(port)
		if err != nil {
			return resultFailure, err.Error()
		}
		conn, err := (&net.Dialer{}).DialContext(ctx, "tcp", addr)
		if err != nil {
			return resultFailure, err.Error()
		}
		conn.Close()
		return resultSuccess, ""
	default:
		return resultFailure, "the test bed's node agent runs httpGet and tcpSocket probes only"
	}
}

func (p prober) http(ctx context.Context, h *corev1.HTTPGetAction, ports []corev1.ContainerPort) (result, string) {
	port, err := resolvePort(h.Port, ports)
	if err != nil {
		return resultFailure, err.Error()
	}
	addr, err := p.addr(port)
	if err != nil {
		return resultFailure, err.Error()
	}
	scheme := "http"
	if h.Scheme == corev1.URISchemeHTTPS {
		scheme = "https"
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, scheme+"://"+addr+h.Path, nil)
	if err != nil {
		return resultFailure, err.Error()
	}
	req.Header.Set("User-Agent", p.userAgent)
	req.Header.Set("Accept", "*/*")
	for _, hd := range h.HTTPHeaders {
		req.Header.Set(hd.Name, hd.Value)
	}
	// The kubelet opens a connection per probe.
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := client.Do(req)
	if err != nil {
		return resultFailure, err.Error()
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 10<<10))
	if resp.StatusCode >= 200 && resp.StatusCode < 400 {
		return resultSuccess, ""
	}
	return resultFailure, "HTTP probe failed with statuscode: " + strconv.Itoa(resp.StatusCode)
}

// resolvePort is a probe's port: a number, or the name of one of the container's ports.
func resolvePort(p intstr.IntOrString, ports []corev1.ContainerPort) (int32, error) {
	if p.Type == intstr.Int {
		return p.IntVal, nil
	}
	for _, cp := range ports {
		if cp.Name == p.StrVal {
			return cp.ContainerPort, nil
		}
	}
	return 0, fmt.Errorf("probe port %q: no container port of that name", p.StrVal)
}
