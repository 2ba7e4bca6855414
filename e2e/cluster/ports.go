package cluster

import (
	"fmt"
	"net"
	"strconv"
)

// DefaultBasePort is where the first cluster's ports start when Options.BasePort is 0.
const DefaultBasePort = 19000

// MaxBrokers is how many brokers one cluster can hold (Options.Brokers plus any started later, as
// in a scale-out): every one of them has its ports reserved from the start.
const MaxBrokers = 4

// brokerBlock is the ports each broker beyond the first owns, above the first broker's cluster.
const brokerBlock = 10

// firstBlock is the span of the layout of a one-broker cluster; brokers beyond the first get
// their own blocks of brokerBlock ports above it.
const firstBlock = 40

// PortSpan is how many ports one cluster may use above its base, every broker slot included: two
// clusters whose bases are at least PortSpan apart never collide.
const PortSpan = firstBlock + (MaxBrokers-1)*brokerBlock

// ServerPorts are one Pinot server's listeners. Each server needs its own set, not only the netty
// port, or the second server fails to bind.
type ServerPorts struct {
	Netty            int // query port; the instance id is Server_127.0.0.1_<Netty>
	Admin            int // admin API, /health
	GRPC             int
	MultiStageServer int
	MultiStageRunner int
}

// BrokerPorts are one broker's listeners, plus one port beside it for its sidecar.
type BrokerPorts struct {
	Query  int // query port; the instance id is Broker_127.0.0.1_<Query>
	Spare  int // unused by the harness: free for an extra broker listener in BrokerExtraConf
	Runner int // multi-stage runner port
	// JMX is the JMX exporter agent's /metrics when the broker runs with it (jmxagent.go).
	JMX int
	// Sidecar is unused by the harness: free for the listener of the sidecar beside this broker,
	// as in its pod.
	Sidecar int
}

// Ports is the loopback port layout of one cluster. Every port is derived from the base so a
// caller can predict them (the demo prints them, the benchmark points its load at Broker).
type Ports struct {
	ZooKeeper  int
	Controller int
	// Broker, BrokerSpare, BrokerRunner and BrokerJMX are the first broker's (Brokers[0]).
	Broker       int
	BrokerSpare  int
	BrokerRunner int
	BrokerJMX    int
	// Brokers are every broker slot's ports, index 0 the first broker.
	Brokers [MaxBrokers]BrokerPorts
	// Balancer is unused by the harness: free for a load balancer in front of the brokers.
	Balancer int
	// Kafka and KafkaController are the KRaft broker's listeners (Options.Hybrid only).
	Kafka           int
	KafkaController int
	Servers         [2]ServerPorts
}

func portsFor(base int) Ports {
	p := Ports{
		ZooKeeper:       base,
		Controller:      base + 1,
		Kafka:           base + 5,
		KafkaController: base + 6,
		Balancer:        base + 8,
	}
	p.Brokers[0] = BrokerPorts{Query: base + 2, Spare: base + 3, Runner: base + 4, JMX: base + 7, Sidecar: base + firstBlock - 5}
	for i := 1; i < MaxBrokers; i++ {
		b := base + firstBlock + (i-1)*brokerBlock
		p.Brokers[i] = BrokerPorts{Query: b, Spare: b + 1, Runner: b + 2, JMX: b + 3, Sidecar: b + 5}
	}
	first := p.Brokers[0]
	p.Broker, p.BrokerSpare, p.BrokerRunner, p.BrokerJMX = first.Query, first.Spare, first.Runner, first.JMX
	for i := range p.Servers {
		s := base + 10 + 10*i
		p.Servers[i] = ServerPorts{Netty: s, Admin: s + 1, GRPC: s + 2, MultiStageServer: s + 3, MultiStageRunner: s + 4}
	}
	return p
}

func (p Ports) all() []int {
	out := []int{p.ZooKeeper, p.Controller, p.Kafka, p.KafkaController, p.Balancer}
	for _, b := range p.Brokers {
		out = append(out, b.Query, b.Spare, b.Runner, b.JMX, b.Sidecar)
	}
	for _, s := range p.Servers {
		out = append(out, s.Netty, s.Admin, s.GRPC, s.MultiStageServer, s.MultiStageRunner)
	}
	return out
}

// checkFree fails early with a clear message instead of letting a JVM die on a bind error that
// only shows in its log minutes later.
func (p Ports) checkFree() error {
	for _, port := range p.all() {
		l, err := net.Listen("tcp", net.JoinHostPort(loopback, strconv.Itoa(port)))
		if err != nil {
			return fmt.Errorf("port %d is taken (another cluster or a leftover JVM? choose another Options.BasePort): %w", port, err)
		}
		l.Close()
	}
	return nil
}
