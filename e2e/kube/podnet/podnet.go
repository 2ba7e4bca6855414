// Package podnet is the test bed's stand-in for the pod network. Kubernetes gives every pod its
// own IP, so every broker pod listens on 8099; here every pod shares the machine's loopback, so
// each pod gets:
//
//   - a pod IP from PodCIDR, reported in its status and so in its Service's EndpointSlices (the
//     API server refuses loopback endpoint addresses); nothing listens on it;
//   - a block of host ports on 127.0.0.1: a port P the pod's containers use (declared
//     containerPorts, probe ports, ports in the configuration a launcher reads) is reached at
//     127.0.0.1:HostPort(P).
//
// Both are keyed by the pod's namespace/name, not its UID: a StatefulSet's replacement pod keeps
// its predecessor's IP and ports, as it keeps its hostname, so a Pinot broker keeps its Helix
// instance id across a rollout as it does on Kubernetes. Whoever sends traffic to a pod (the
// kubelet stand-in's probes, the service proxy) translates (IP, P) with Lookup.
package podnet

import (
	"fmt"
	"net"
	"regexp"
	"sort"
	"strconv"
	"sync"
)

// PodCIDR is the range pod IPs are taken from (10.244.0.0/24, as kind's first node).
const PodCIDR = "10.244.0.0/24"

// Network hands out pod IPs and port blocks.
type Network struct {
	basePort, blockSize int
	mu                  sync.Mutex
	pods                map[string]*Pod // by namespace/name
	byIP                map[string]*Pod
}

// New is a network whose pod k owns host ports [basePort+k*blockSize, basePort+(k+1)*blockSize).
func New(basePort, blockSize int) *Network {
	return &Network{basePort: basePort, blockSize: blockSize, pods: map[string]*Pod{}, byIP: map[string]*Pod{}}
}

// Pod is one pod's address and port map.
type Pod struct {
	Key   string // namespace/name
	IP    string
	index int
	base  int
	size  int
	mu    sync.Mutex
	ports map[int32]int // container port → host port
}

// Pod returns the pod's network, assigning it on first use; the same key always gets the same one.
func (n *Network) Pod(namespace, name string) (*Pod, error) {
	key := namespace + "/" + name
	n.mu.Lock()
	defer n.mu.Unlock()
	if p, ok := n.pods[key]; ok {
		return p, nil
	}
	k := len(n.pods)
	if k >= 240 {
		return nil, fmt.Errorf("pod network: %s: all %d pod addresses of %s are taken", key, 240, PodCIDR)
	}
	p := &Pod{
		Key: key, IP: fmt.Sprintf("10.244.0.%d", k+10), index: k,
		base: n.basePort + k*n.blockSize, size: n.blockSize, ports: map[int32]int{},
	}
	n.pods[key], n.byIP[p.IP] = p, p
	return p, nil
}

// HostPort is where the pod's port p is reached on 127.0.0.1, assigning the next port of the
// pod's block on first use.
func (p *Pod) HostPort(port int32) (int, error) {
	if port <= 0 || port > 65535 {
		return 0, fmt.Errorf("pod %s: port %d: want 1–65535", p.Key, port)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if hp, ok := p.ports[port]; ok {
		return hp, nil
	}
	if len(p.ports) >= p.size {
		return 0, fmt.Errorf("pod %s: port %d: its block of %d host ports is full", p.Key, port, p.size)
	}
	hp := p.base + len(p.ports)
	p.ports[port] = hp
	return hp, nil
}

// Ports are the pod's container ports known so far, ascending.
func (p *Pod) Ports() []int32 {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]int32, 0, len(p.ports))
	for k := range p.ports {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// Lookup translates a pod address to where it is served: (pod IP, container port) → 127.0.0.1
// host port. ok is false for an IP no pod has or a port the pod never declared.
func (n *Network) Lookup(ip string, port int32) (addr string, ok bool) {
	n.mu.Lock()
	p := n.byIP[ip]
	n.mu.Unlock()
	if p == nil {
		return "", false
	}
	p.mu.Lock()
	hp, ok := p.ports[port]
	p.mu.Unlock()
	if !ok {
		return "", false
	}
	return net.JoinHostPort("127.0.0.1", strconv.Itoa(hp)), true
}

// localAddr matches "host:port" for the hosts a container uses to mean itself (loopback, any,
// or none), optionally after a scheme: the forms env values and flags use for a pod's own
// listeners and its containers' way to each other.
var localAddr = regexp.MustCompile(`((?:^|[/=@\s])(?:127\.0\.0\.1|localhost|0\.0\.0\.0|\[::\])?):(\d{1,5})\b`)

// Rewrite translates every pod-local address in s whose port the pod has (see Ports) to its
// host port: "http://127.0.0.1:8099" → "http://127.0.0.1:24000", ":9095" → ":24001". Other text
// is kept. Ports must be declared (HostPort) before the values that use them are rewritten.
func (p *Pod) Rewrite(s string) string {
	return localAddr.ReplaceAllStringFunc(s, func(m string) string {
		sub := localAddr.FindStringSubmatch(m)
		port, err := strconv.Atoi(sub[2])
		if err != nil {
			return m
		}
		p.mu.Lock()
		hp, ok := p.ports[int32(port)]
		p.mu.Unlock()
		if !ok {
			return m
		}
		return sub[1] + ":" + strconv.Itoa(hp)
	})
}

// LocalPorts are the ports of the pod-local addresses in s (those Rewrite translates once they
// are declared), each once, in order of appearance: a launcher declares them (HostPort) before
// it rewrites a value, whichever container of the pod declares the port first.
func LocalPorts(s string) []int32 {
	var out []int32
	seen := map[int32]bool{}
	for _, sub := range localAddr.FindAllStringSubmatch(s, -1) {
		n, err := strconv.Atoi(sub[2])
		if err != nil || n < 1 || n > 65535 || seen[int32(n)] {
			continue
		}
		seen[int32(n)] = true
		out = append(out, int32(n))
	}
	return out
}
