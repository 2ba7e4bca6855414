package proxy

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

const ns = "pinot"

// endpoint is one endpoint as the endpointslice controller writes it: conds holds R (ready),
// S (serving), T (terminating), each condition false when absent; "-" leaves all three unset.
func endpoint(ip, pod, conds string) discoveryv1.Endpoint {
	e := discoveryv1.Endpoint{Addresses: []string{ip}}
	if pod != "" {
		e.TargetRef = &corev1.ObjectReference{Kind: "Pod", Namespace: ns, Name: pod}
	}
	if conds != "-" {
		b := func(c string) *bool { v := strings.Contains(conds, c); return &v }
		e.Conditions = discoveryv1.EndpointConditions{Ready: b("R"), Serving: b("S"), Terminating: b("T")}
	}
	return e
}

type port struct {
	name  string // "<nil>": no name
	num   int32
	proto corev1.Protocol
}

func slice(name string, ports []port, eps ...discoveryv1.Endpoint) *discoveryv1.EndpointSlice {
	s := &discoveryv1.EndpointSlice{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: map[string]string{
			discoveryv1.LabelServiceName: "pinot-broker", discoveryv1.LabelManagedBy: "proxy-test"}},
		AddressType: discoveryv1.AddressTypeIPv4,
		Endpoints:   eps,
	}
	for _, p := range ports {
		sp := discoveryv1.EndpointPort{Port: &p.num}
		if p.name != "<nil>" {
			sp.Name = &p.name
		}
		if p.proto != "" {
			sp.Protocol = &p.proto
		}
		s.Ports = append(s.Ports, sp)
	}
	return s
}

var brokerPort = []port{{name: "broker", num: 8099, proto: corev1.ProtocolTCP}}

// fakeNet knows pods 10.244.0.10–12 on 8099 (and 10.244.0.10 on 9000).
func fakeNet(ip string, p int32) (string, bool) {
	t, ok := map[string]string{
		"10.244.0.10:8099": "127.0.0.1:24000", "10.244.0.11:8099": "127.0.0.1:24010",
		"10.244.0.12:8099": "127.0.0.1:24020", "10.244.0.10:9000": "127.0.0.1:24001",
	}[fmt.Sprintf("%s:%d", ip, p)]
	return t, ok
}

// show is one line per endpoint: key, port, serve or not, reason, target.
func show(eps []Endpoint) []string {
	var out []string
	for _, e := range eps {
		serve := "out"
		if e.Serve {
			serve = "IN"
		}
		out = append(out, fmt.Sprintf("%s %d %s (%s) %s", e.Key(), e.Port, serve, e.Reason, e.Target))
	}
	return out
}

func TestSelect(t *testing.T) {
	in := func(k, target string) string { return k + " 8099 IN (ready) " + target }
	notReady := func(k, target string) string { return k + " 8099 out (not ready) " + target }
	for _, tc := range []struct {
		name   string
		slices []*discoveryv1.EndpointSlice
		want   []string
	}{
		{"ready serves at its pod network address, not ready does not",
			[]*discoveryv1.EndpointSlice{slice("a", brokerPort,
				endpoint("10.244.0.10", "b0", "RS"), endpoint("10.244.0.11", "b1", ""))},
			[]string{in("pinot/b0", "127.0.0.1:24000"), notReady("pinot/b1", "127.0.0.1:24010")}},
		{"unset conditions mean ready",
			[]*discoveryv1.EndpointSlice{slice("a", brokerPort, endpoint("10.244.0.10", "b0", "-"))},
			[]string{in("pinot/b0", "127.0.0.1:24000")}},
		{"no ready endpoint: the serving and terminating ones serve, no other",
			[]*discoveryv1.EndpointSlice{slice("a", brokerPort,
				endpoint("10.244.0.10", "b0", "ST"), endpoint("10.244.0.11", "b1", "S"), endpoint("10.244.0.12", "b2", "T"))},
			[]string{"pinot/b0 8099 IN (" + ReasonFallback + ") 127.0.0.1:24000",
				notReady("pinot/b1", "127.0.0.1:24010"), notReady("pinot/b2", "127.0.0.1:24020")}},
		{"one ready endpoint: no terminating one serves",
			[]*discoveryv1.EndpointSlice{slice("a", brokerPort,
				endpoint("10.244.0.10", "b0", "ST"), endpoint("10.244.0.11", "b1", "RS"))},
			[]string{notReady("pinot/b0", "127.0.0.1:24000"), in("pinot/b1", "127.0.0.1:24010")}},
		{"ready but unknown to the pod network: left out, and still no fallback",
			[]*discoveryv1.EndpointSlice{slice("a", brokerPort,
				endpoint("10.244.0.10", "b0", "ST"), endpoint("10.244.0.99", "ghost", "RS"))},
			[]string{notReady("pinot/b0", "127.0.0.1:24000"), "pinot/ghost 8099 out (" + ReasonUnknown + ") "}},
		{"endpoints split across slices",
			[]*discoveryv1.EndpointSlice{slice("a", brokerPort, endpoint("10.244.0.10", "b0", "RS")),
				slice("b", brokerPort, endpoint("10.244.0.11", "b1", "RS"))},
			[]string{in("pinot/b0", "127.0.0.1:24000"), in("pinot/b1", "127.0.0.1:24010")}},
		{"the port is the one of the Service port's name and protocol",
			[]*discoveryv1.EndpointSlice{
				slice("a", []port{{name: "admin", num: 9000}, {name: "broker", num: 9000, proto: corev1.ProtocolUDP},
					{name: "broker", num: 0}, {name: "<nil>", num: 9000}, {name: "broker", num: 8099}},
					endpoint("10.244.0.10", "b0", "RS")),
				slice("b", []port{{name: "other", num: 8099}}, endpoint("10.244.0.11", "b1", "RS"))},
			[]string{in("pinot/b0", "127.0.0.1:24000")}},
		{"IPv6 and FQDN slices, endpoints without addresses are ignored; the first address is used",
			func() []*discoveryv1.EndpointSlice {
				v6 := slice("v6", brokerPort, endpoint("fd00::1", "b1", "RS"))
				v6.AddressType = discoveryv1.AddressTypeIPv6
				fqdn := slice("fqdn", brokerPort, endpoint("b2.example", "b2", "RS"))
				fqdn.AddressType = discoveryv1.AddressTypeFQDN
				two := endpoint("10.244.0.10", "b0", "RS")
				two.Addresses = append(two.Addresses, "10.244.0.11")
				none := endpoint("", "b3", "RS")
				none.Addresses = nil
				return []*discoveryv1.EndpointSlice{v6, fqdn, slice("a", brokerPort, two, none)}
			}(),
			[]string{in("pinot/b0", "127.0.0.1:24000")}},
		{"one address in two slices: the non-terminating endpoint wins, either order",
			[]*discoveryv1.EndpointSlice{
				slice("a", brokerPort, endpoint("10.244.0.10", "old", "ST")),
				slice("b", brokerPort, endpoint("10.244.0.10", "new", "RS")),
				slice("c", brokerPort, endpoint("10.244.0.11", "new1", "RS")),
				slice("d", brokerPort, endpoint("10.244.0.11", "old1", "ST"))},
			[]string{in("pinot/new", "127.0.0.1:24000"), in("pinot/new1", "127.0.0.1:24010")}},
		{"a targetRef that is no Pod: keyed by address; one without namespace: the slice's",
			func() []*discoveryv1.EndpointSlice {
				a := endpoint("10.244.0.10", "", "RS")
				a.TargetRef = &corev1.ObjectReference{Kind: "Node", Name: "n1"}
				b := endpoint("10.244.0.11", "b1", "RS")
				b.TargetRef.Namespace = ""
				return []*discoveryv1.EndpointSlice{slice("a", brokerPort, a, b)}
			}(),
			[]string{in("10.244.0.10:8099", "127.0.0.1:24000"), in("pinot/b1", "127.0.0.1:24010")}},
		{"no slices", nil, nil},
	} {
		if got := show(Select(tc.slices, "broker", corev1.ProtocolTCP, fakeNet)); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s:\n got %q\nwant %q", tc.name, got, tc.want)
		}
	}
}

func TestServicePort(t *testing.T) {
	svc := func(mod func(*corev1.Service)) *corev1.Service {
		s := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "pinot-broker", Namespace: ns},
			Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeClusterIP, ClusterIP: "10.96.0.20",
				Ports: []corev1.ServicePort{{Name: "broker", Port: 8099}}}}
		if mod != nil {
			mod(s)
		}
		return s
	}
	for _, tc := range []struct {
		name   string
		svc    *corev1.Service
		port   string
		reason string // "" = proxied
	}{
		{"the chart's broker Service", svc(nil), "broker", ""},
		{"no Service", nil, "broker", "no Service"},
		{"headless", svc(func(s *corev1.Service) { s.Spec.ClusterIP = corev1.ClusterIPNone }), "broker", "headless"},
		{"no cluster IP yet", svc(func(s *corev1.Service) { s.Spec.ClusterIP = "" }), "broker", "headless"},
		{"ExternalName", svc(func(s *corev1.Service) { s.Spec.Type = corev1.ServiceTypeExternalName }), "broker", "ExternalName"},
		{"no such port", svc(nil), "admin", `no port named "admin"`},
		{"an unnamed port", svc(func(s *corev1.Service) { s.Spec.Ports[0].Name = "" }), "", ""},
	} {
		p, reason, ok := ServicePort(tc.svc, tc.port)
		switch {
		case tc.reason == "" && (!ok || p.Port != 8099 || p.Protocol != corev1.ProtocolTCP):
			t.Errorf("%s: %+v %q %v, want port 8099/TCP", tc.name, p, reason, ok)
		case tc.reason != "" && (ok || !strings.Contains(reason, tc.reason)):
			t.Errorf("%s: ok %v, reason %q, want not proxied for %q", tc.name, ok, reason, tc.reason)
		}
	}
}
