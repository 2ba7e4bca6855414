package config

import (
	"slices"
	"strings"
	"testing"
)

// links is what the kubelet puts into every pod of the namespace for a
// Service of this env name with a ClusterIP and these ports (port, protocol,
// name): pkg/kubelet/envvars FromServices.
func links(name, ip string, ports ...[3]string) []string {
	host := ip
	if strings.Contains(ip, ":") {
		host = "[" + ip + "]"
	}
	env := []string{name + "_SERVICE_HOST=" + ip, name + "_SERVICE_PORT=" + ports[0][0],
		name + "_PORT=" + strings.ToLower(ports[0][1]) + "://" + host + ":" + ports[0][0]}
	for _, p := range ports {
		if p[2] != "" {
			env = append(env, name+"_SERVICE_PORT_"+p[2]+"="+p[0])
		}
		pp := name + "_PORT_" + p[0] + "_" + p[1]
		proto := strings.ToLower(p[1])
		env = append(env, pp+"="+proto+"://"+host+":"+p[0], pp+"_PROTO="+proto, pp+"_PORT="+p[0], pp+"_ADDR="+ip)
	}
	return env
}

// Services named warmup, warmup-sidecar and warmup-9 (ports named or not, TCP,
// UDP and SCTP, IPv4 and IPv6) give the pod variables that are no settings:
// they are ignored and listed, and the real settings beside them still apply.
func TestServiceLinkVariablesAreIgnored(t *testing.T) {
	env := []string{ctl, "WARMUP_BUDGET=30s"}
	env = append(env, links("WARMUP_SIDECAR", "10.96.12.7", [3]string{"9095", "TCP", "HTTP"})...)
	env = append(env, links("WARMUP", "fd00::a", [3]string{"80", "TCP", ""}, [3]string{"53", "UDP", "DNS"}, [3]string{"7", "SCTP", "ECHO_1"})...)
	env = append(env, links("WARMUP_9", "10.0.0.9", [3]string{"8099", "TCP", "QUERY_PORT"})...)
	c, _, err := LoadFrom(env)
	if err != nil {
		t.Fatalf("service links rejected: %v", err)
	}
	if c.Budget.String() != "30s" {
		t.Errorf("budget %s, want the setting beside the links", c.Budget)
	}
	var want []string
	for _, kv := range env[2:] {
		k, _, _ := strings.Cut(kv, "=")
		want = append(want, k)
	}
	slices.Sort(want)
	if !slices.Equal(c.ServiceLinks, want) {
		t.Errorf("ignored %q,\nwant %q", c.ServiceLinks, want)
	}
}

// Only the exact shapes, with the values the kubelet writes, and only beside
// the Service's own _SERVICE_HOST and _SERVICE_PORT: a typo that looks like a
// link, alone or with a value no kubelet writes, stays an unknown variable.
func TestLookAlikesOfServiceLinksAreRejected(t *testing.T) {
	svc := links("WARMUP_SIDECAR", "10.96.12.7", [3]string{"9095", "TCP", "HTTP"})
	for _, tc := range []struct {
		name string
		env  []string
		bad  string
	}{
		{"a typo", []string{"WARMUP_BUGDET=30s"}, "WARMUP_BUGDET"},
		{"a port variable without its service", []string{"WARMUP_LISTEN_PORT=tcp://10.0.0.1:9095"}, "WARMUP_LISTEN_PORT"},
		{"a port variable without the service's port", []string{"WARMUP_LISTEN_SERVICE_HOST=10.0.0.1", "WARMUP_LISTEN_PORT=tcp://10.0.0.1:9095"}, "WARMUP_LISTEN_PORT"},
		{"a setting's value where a link's is", append([]string{"WARMUP_SIDECAR_PORT_9095_TCP_ADDR=:9095"}, svc[:2]...), "WARMUP_SIDECAR_PORT_9095_TCP_ADDR"},
		{"a host that is no IP", []string{"WARMUP_X_SERVICE_HOST=broker", "WARMUP_X_SERVICE_PORT=8099"}, "WARMUP_X_SERVICE_HOST"},
		{"a port out of range", append([]string{"WARMUP_SIDECAR_SERVICE_PORT_ADMIN=70000"}, svc...), "WARMUP_SIDECAR_SERVICE_PORT_ADMIN"},
		{"a protocol Kubernetes has not", append([]string{"WARMUP_SIDECAR_PORT_9095_HTTP=http://10.96.12.7:9095"}, svc...), "WARMUP_SIDECAR_PORT_9095_HTTP"},
		{"a port number that differs from the name's", append([]string{"WARMUP_SIDECAR_PORT_8080_TCP_PORT=8081"}, svc...), "WARMUP_SIDECAR_PORT_8080_TCP_PORT"},
		{"an unknown link suffix", append([]string{"WARMUP_SIDECAR_PORT_9095_TCP_HOST=10.96.12.7"}, svc...), "WARMUP_SIDECAR_PORT_9095_TCP_HOST"},
		{"lower case", append([]string{"WARMUP_SIDECAR_service_host=10.96.12.7"}, svc...), "WARMUP_SIDECAR_service_host"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := LoadFrom(append([]string{ctl}, tc.env...))
			if err == nil || !slices.Contains(strings.Split(strings.SplitN(err.Error(), ": unknown variable", 2)[0], ", "), tc.bad) {
				t.Errorf("error %v, want %s named as unknown", err, tc.bad)
			}
		})
	}
}

// No setting may have a service link's shape: a Service of the matching name
// would set it in every pod of the namespace, and the sidecar would read the
// kubelet's value as the operator's.
func TestNoSettingIsShapedLikeAServiceLink(t *testing.T) {
	for _, k := range Known() {
		for i := len(Prefix); i < len(k); i++ {
			if k[i] != '_' {
				continue
			}
			if shape := linkShape(k[i:]); shape != "" {
				t.Errorf("%s is shaped like the %s variable of a Service named %q", k, shape, k[:i])
			}
		}
	}
}
