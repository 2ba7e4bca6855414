package proxy

import (
	"fmt"
	"net"
	"sort"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
)

// Lookup translates a pod address to where the test bed serves it (podnet.Network.Lookup).
type Lookup func(ip string, port int32) (addr string, ok bool)

// Endpoint is one endpoint of the Service port, as kube-proxy reads it, and what it makes of it.
type Endpoint struct {
	Pod         string // the targetRef's namespace/name when it names a Pod, else ""
	IP          string // the endpoint's first address
	Port        int32  // the slice's number for the Service port
	Ready       bool
	Serving     bool
	Terminating bool
	// Serve: kube-proxy sends it the Service's traffic (Reason says why or why not).
	Serve  bool
	Reason string
	// Target is where podnet serves IP:Port on loopback; "" when podnet does not know it.
	Target string
}

// Key names the endpoint for its slot and the event log: the pod, else its address.
func (e Endpoint) Key() string {
	if e.Pod != "" {
		return e.Pod
	}
	return e.Addr()
}

// Addr is the endpoint's address as the EndpointSlice gives it: pod IP:port.
func (e Endpoint) Addr() string { return net.JoinHostPort(e.IP, strconv.Itoa(int(e.Port))) }

// Why an endpoint gets traffic or not.
const (
	ReasonReady       = "ready"
	ReasonFallback    = "serving and terminating, the Service has no ready endpoint"
	ReasonNotReady    = "not ready"
	ReasonUnknown     = "not in the pod network"
	ReasonRemoved     = "removed from the EndpointSlices"
	ReasonAddrChanged = "its address changed"
)

// ServicePort is the port of svc kube-proxy proxies for the port named portName, or the reason it
// proxies none (then ok is false): no Service, an ExternalName or headless one, no such port.
func ServicePort(svc *corev1.Service, portName string) (_ corev1.ServicePort, reason string, ok bool) {
	switch {
	case svc == nil:
		return corev1.ServicePort{}, "no Service", false
	case svc.Spec.Type == corev1.ServiceTypeExternalName:
		return corev1.ServicePort{}, "the Service is ExternalName", false
	case svc.Spec.ClusterIP == "" || svc.Spec.ClusterIP == corev1.ClusterIPNone:
		return corev1.ServicePort{}, "the Service is headless (no cluster IP)", false
	}
	for _, p := range svc.Spec.Ports {
		if p.Name == portName {
			if p.Protocol == "" {
				p.Protocol = corev1.ProtocolTCP
			}
			return p, "", true
		}
	}
	return corev1.ServicePort{}, fmt.Sprintf("the Service has no port named %q", portName), false
}

// Select applies kube-proxy's rules (the package doc) to the Service's EndpointSlices for the
// Service port named portName with protocol proto: every endpoint of that port, once, sorted by
// Key, each with Serve and Reason, and Target where lookup knows it.
func Select(slices []*discoveryv1.EndpointSlice, portName string, proto corev1.Protocol, lookup Lookup) []Endpoint {
	// Slices in name order: kube-proxy reads them in map order, so which of two endpoints with
	// one address wins is undefined there; here it is at least the same on every run.
	slices = append([]*discoveryv1.EndpointSlice(nil), slices...)
	sort.Slice(slices, func(i, j int) bool { return slices[i].Name < slices[j].Name })
	byAddr := map[string]Endpoint{}
	for _, s := range slices {
		if s.AddressType != discoveryv1.AddressTypeIPv4 {
			continue
		}
		port, ok := slicePort(s, portName, proto)
		if !ok {
			continue
		}
		for _, e := range s.Endpoints {
			if len(e.Addresses) == 0 {
				continue
			}
			ep := Endpoint{
				IP: e.Addresses[0], Port: port,
				Ready:       e.Conditions.Ready == nil || *e.Conditions.Ready,
				Serving:     e.Conditions.Serving == nil || *e.Conditions.Serving,
				Terminating: e.Conditions.Terminating != nil && *e.Conditions.Terminating,
			}
			if r := e.TargetRef; r != nil && r.Kind == "Pod" {
				ns := r.Namespace
				if ns == "" {
					ns = s.Namespace
				}
				ep.Pod = ns + "/" + r.Name
			}
			if _, seen := byAddr[ep.Addr()]; !seen || !ep.Terminating {
				byAddr[ep.Addr()] = ep
			}
		}
	}
	anyReady := false
	for _, ep := range byAddr {
		anyReady = anyReady || ep.Ready
	}
	out := make([]Endpoint, 0, len(byAddr))
	for _, ep := range byAddr {
		switch {
		case ep.Ready:
			ep.Serve, ep.Reason = true, ReasonReady
		case !anyReady && ep.Serving && ep.Terminating:
			ep.Serve, ep.Reason = true, ReasonFallback
		default:
			ep.Reason = ReasonNotReady
		}
		if t, ok := lookup(ep.IP, ep.Port); ok {
			ep.Target = t
		} else if ep.Serve {
			// Chosen by kube-proxy, which would send it traffic that fails; here it cannot be
			// reached at all, so it is left out (and still counts as ready above, as there).
			ep.Serve, ep.Reason = false, ReasonUnknown
		}
		out = append(out, ep)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Key() != out[j].Key() {
			return out[i].Key() < out[j].Key()
		}
		return out[i].Addr() < out[j].Addr()
	})
	return out
}

// slicePort is the slice's number for the Service port: the port with the same name and protocol.
func slicePort(s *discoveryv1.EndpointSlice, name string, proto corev1.Protocol) (int32, bool) {
	for _, p := range s.Ports {
		if p.Name == nil || *p.Name != name || p.Port == nil || *p.Port == 0 {
			continue
		}
		if p.Protocol != nil && *p.Protocol != proto || p.Protocol == nil && proto != corev1.ProtocolTCP {
			continue
		}
		return *p.Port, true
	}
	return 0, false
}
