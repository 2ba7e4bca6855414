package config

import (
	"net"
	"strconv"
	"strings"
)

// Kubernetes service links: with enableServiceLinks (the default) the kubelet
// gives every container variables for each Service of its namespace, named
// from the Service (upper case, '-' and '.' as '_'): a Service named
// warmup-sidecar puts WARMUP_SIDECAR_SERVICE_HOST and the like into the broker
// pod, where they are not settings. The shapes and values are those of
// pkg/kubelet/envvars (FromServices, makeLinkVariables):
//
//	<N>_SERVICE_HOST                 the ClusterIP
//	<N>_SERVICE_PORT                 the first port
//	<N>_SERVICE_PORT_<PORT NAME>     each named port
//	<N>_PORT                         <proto>://<ip>:<port> of the first port
//	<N>_PORT_<port>_<PROTO>          <proto>://<ip>:<port>, and with
//	  _PROTO, _PORT, _ADDR             the protocol, the port, the ClusterIP
//
// A variable is taken for one only in its exact shape, with a value the kubelet
// would write, and beside its Service's <N>_SERVICE_HOST and <N>_SERVICE_PORT,
// which the kubelet always writes together: a typo of a setting (a lone
// WARMUP_LISTEN_PORT, say) stays an error.

// linkKind is which service-link variable a name's tail is.
type linkKind int

const (
	notLink linkKind = iota
	serviceHost
	servicePort
	namedServicePort
	firstPort
	portURL
	portProto
	portNumber
	portAddr
)

var linkKindNames = map[linkKind]string{
	serviceHost: "_SERVICE_HOST", servicePort: "_SERVICE_PORT", namedServicePort: "_SERVICE_PORT_<NAME>",
	firstPort: "_PORT", portURL: "_PORT_<n>_<PROTO>", portProto: "_PORT_<n>_<PROTO>_PROTO",
	portNumber: "_PORT_<n>_<PROTO>_PORT", portAddr: "_PORT_<n>_<PROTO>_ADDR",
}

// linkTail is a parsed tail: its kind, and for the per-port kinds the port
// and protocol the name carries.
type linkTail struct {
	kind  linkKind
	port  string
	proto string
}

// protocols are a Service port's protocols, as the kubelet writes them in names.
var protocols = map[string]bool{"TCP": true, "UDP": true, "SCTP": true}

// parseLinkTail reads the part of a name after the Service's env name.
func parseLinkTail(tail string) linkTail {
	switch tail {
	case "_SERVICE_HOST":
		return linkTail{kind: serviceHost}
	case "_SERVICE_PORT":
		return linkTail{kind: servicePort}
	case "_PORT":
		return linkTail{kind: firstPort}
	}
	if name, ok := strings.CutPrefix(tail, "_SERVICE_PORT_"); ok && portNameVar(name) {
		return linkTail{kind: namedServicePort}
	}
	rest, ok := strings.CutPrefix(tail, "_PORT_")
	if !ok {
		return linkTail{}
	}
	parts := strings.SplitN(rest, "_", 3)
	if len(parts) < 2 || !validPortNumber(parts[0]) || !protocols[parts[1]] {
		return linkTail{}
	}
	t := linkTail{kind: portURL, port: parts[0], proto: strings.ToLower(parts[1])}
	if len(parts) == 2 {
		return t
	}
	t.kind = map[string]linkKind{"PROTO": portProto, "PORT": portNumber, "ADDR": portAddr}[parts[2]]
	return t
}

// linkShape names the service-link variable a name's tail (from the '_' after
// the Service's env name) is shaped like; "" for none.
func linkShape(tail string) string { return linkKindNames[parseLinkTail(tail).kind] }

// fits reports whether value is what the kubelet writes for this tail.
func (t linkTail) fits(value string) bool {
	switch t.kind {
	case serviceHost, portAddr:
		return net.ParseIP(value) != nil
	case servicePort, namedServicePort:
		return validPortNumber(value)
	case firstPort:
		proto, hostPort, ok := strings.Cut(value, "://")
		return ok && protocols[strings.ToUpper(proto)] && proto == strings.ToLower(proto) && ipPort(hostPort, "")
	case portURL:
		hostPort, ok := strings.CutPrefix(value, t.proto+"://")
		return ok && ipPort(hostPort, t.port)
	case portProto:
		return value == t.proto
	case portNumber:
		return value == t.port
	}
	return false
}

// ipPort: host:port with an IP host and a valid port (port, when given).
func ipPort(hostPort, port string) bool {
	host, p, err := net.SplitHostPort(hostPort)
	return err == nil && net.ParseIP(host) != nil && validPortNumber(p) && (port == "" || p == port)
}

// validPortNumber: 1–65535 written as the kubelet writes it (no sign, no
// leading zero).
func validPortNumber(s string) bool {
	n, err := strconv.Atoi(s)
	return err == nil && n >= 1 && n <= 65535 && strconv.Itoa(n) == s
}

// portNameVar: a Service port name (an IANA service name: lower-case letters,
// digits and '-', a letter among them) as the kubelet writes it in a name.
func portNameVar(s string) bool {
	letter := false
	for _, r := range s {
		switch {
		case r >= 'A' && r <= 'Z':
			letter = true
		case r >= '0' && r <= '9', r == '_':
		default:
			return false
		}
	}
	return letter
}

// isServiceLink reports whether name, with its value in env, is a variable the
// kubelet wrote for a Service whose env name starts it (WARMUP itself or
// WARMUP_…), that Service's host and port beside it.
func isServiceLink(name string, env map[string]string) bool {
	for i := len(Prefix); i < len(name); i++ {
		if name[i] != '_' {
			continue
		}
		svc := name[:i]
		if parseLinkTail(name[i:]).fits(env[name]) &&
			net.ParseIP(env[svc+"_SERVICE_HOST"]) != nil && validPortNumber(env[svc+"_SERVICE_PORT"]) {
			return true
		}
	}
	return false
}
