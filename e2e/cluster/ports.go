package cluster

import (
	"fmt"
	"net"
	"strconv"
)

// DefaultBasePort is where the first cluster's ports start when Options.BasePort is 0.
const DefaultBasePort = 19000

// PortSpan is how many ports one cluster may use above its base: two clusters whose bases are at
// least PortSpan apart never collide.
const PortSpan = 40

// ServerPorts are one Pinot server's listeners. Each server needs its own set, not only the netty
// port, or the second server fails to bind.
type ServerPorts struct {
	Netty            int // query port; the instance id is Server_127.0.0.1_<Netty>
	Admin            int // admin API, /health
	GRPC             int
	MultiStageServer int
	MultiStageRunner int
}

// Ports is the loopback port layout of one cluster. Every port is derived from the base so a
// caller can predict them (the demo prints them, the benchmark points its load at Broker).
type Ports struct {
	ZooKeeper    int
	Controller   int
	Broker       int // query port; the broker instance id is Broker_127.0.0.1_<Broker>
	BrokerSpare  int // unused by the harness: free for an extra broker listener in BrokerExtraConf
	BrokerRunner int // multi-stage runner port
	// Kafka and KafkaController are the KRaft broker's listeners (Options.Hybrid only).
	Kafka           int
	KafkaController int
	// BrokerJMX is the JMX exporter agent's /metrics when the broker runs with it (jmxagent.go).
	BrokerJMX int
	Servers   [2]ServerPorts
}

func portsFor(base int) Ports {
	p := Ports{
		ZooKeeper:    base,
		Controller:   base + 1,
		Broker:       base + 2,
		BrokerSpare:  base + 3,
		BrokerRunner: base + 4,

		Kafka:           base + 5,
		KafkaController: base + 6,
		BrokerJMX:       base + 7,
	}
	for i := range p.Servers {
		s := base + 10 + 10*i
		p.Servers[i] = ServerPorts{Netty: s, Admin: s + 1, GRPC: s + 2, MultiStageServer: s + 3, MultiStageRunner: s + 4}
	}
	return p
}

func (p Ports) all() []int {
	out := []int{p.ZooKeeper, p.Controller, p.Broker, p.BrokerSpare, p.BrokerRunner, p.Kafka, p.KafkaController, p.BrokerJMX}
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
