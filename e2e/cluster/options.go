package cluster

import (
	"fmt"
	"io"
	"log/slog"
	"time"
)

const loopback = "127.0.0.1"

// Options configure a cluster. The zero value starts a cluster on DefaultBasePort with the small
// placement tables, after installing Pinot with scripts/install-pinot.sh if needed.
type Options struct {
	// PinotLibDir holds the Pinot jars (the classpath is PinotLibDir/*). Empty: run
	// scripts/install-pinot.sh (found by walking up to go.mod) and use the last line it prints.
	PinotLibDir string
	// WorkDir receives config files, data dirs and one log per JVM (logs/<role>.log). Empty: a new
	// temp dir, removed by Stop unless KeepWorkDir.
	WorkDir     string
	KeepWorkDir bool
	// BasePort: see Ports. 0 means DefaultBasePort.
	BasePort int
	// ClusterName is the Helix cluster name. Empty: a name unique to this process and base port, so
	// a broker can never join another harness's cluster by accident.
	ClusterName string

	// Logger receives the harness's own progress (roles started, timings). Nil: slog.Default().
	Logger *slog.Logger
	// ProcessOutput, if set, also receives every JVM's output, each line prefixed with its role.
	// The per-role log files in WorkDir/logs are written either way.
	ProcessOutput io.Writer

	// JavaBin is the java executable. Empty: $JAVA_HOME/bin/java if JAVA_HOME is set, else "java".
	JavaBin string
	// JVMOpts are appended to every JVM's options (after the harness defaults, so they win).
	JVMOpts []string
	// Brokers is how many brokers start with the cluster, each with its own ports (Ports.Brokers)
	// and Helix instance id; slots up to MaxBrokers can be started later (Cluster.Broker). 0: 1.
	Brokers int
	// BrokerJVMOpts are appended to the broker's JVM options only, e.g. -XX:ActiveProcessorCount=2.
	BrokerJVMOpts []string
	// BrokerExtraConf lines ("key=value") are appended to the broker's config file: access control,
	// extra listeners, delayShutdownTimeMs... RestartBroker can replace them.
	BrokerExtraConf []string

	// BenchTable also loads TableBench (BenchRows rows in BenchSegments segments, ~1 min on 2
	// cores). Off by default: most e2e scenarios only need the small tables.
	BenchTable    bool
	BenchRows     int // 0: 1,000,000
	BenchSegments int // 0: 8

	// Hybrid also starts a Kafka broker (KRaft, one JVM) and loads TableHybrid: a REALTIME table fed
	// from it plus its OFFLINE twin, so the cover sees a consuming server and two typed legs.
	Hybrid bool

	// KeepStaleBrokerSession makes KillBroker/RestartBroker behave like a real crash-restart: the killed
	// broker's ZooKeeper session is left to expire, and the new broker waits ~35 s for it (Helix:
	// session timeout + 5 s) before it registers and turns healthy. Off: restarts take seconds.
	KeepStaleBrokerSession bool

	// StartTimeout bounds the wait for each role's health check. 0: 3 minutes.
	StartTimeout time.Duration
	// StopGrace is how long a JVM gets after SIGTERM before SIGKILL. 0: 5 seconds.
	StopGrace time.Duration
}

func (o Options) withDefaults() Options {
	if o.BasePort == 0 {
		o.BasePort = DefaultBasePort
	}
	if o.Brokers == 0 {
		o.Brokers = 1
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.BenchRows == 0 {
		o.BenchRows = 1_000_000
	}
	if o.BenchSegments == 0 {
		o.BenchSegments = 8
	}
	if o.StartTimeout == 0 {
		o.StartTimeout = 3 * time.Minute
	}
	if o.StopGrace == 0 {
		o.StopGrace = 5 * time.Second
	}
	return o
}

func (o Options) check() error {
	if o.Brokers < 1 || o.Brokers > MaxBrokers {
		return fmt.Errorf("options: Brokers %d: want 1–%d", o.Brokers, MaxBrokers)
	}
	return nil
}
