// Package cluster runs a real Apache Pinot cluster on loopback for e2e tests, the demo and the
// cold-start benchmark: ZooKeeper, a controller, two servers and one broker or a fleet of them
// (Options.Brokers, each with its own ports and Helix instance id), each its own JVM
// started from the Maven Central jars that scripts/install-pinot.sh caches, with small OFFLINE
// tables placed on one server, the other, and both (plus an optional 1M-row benchmark table).
//
// Every JVM runs in its own process group, is stopped by its own pid, and dies with the Go
// process on Linux (Pdeathsig). The cluster lives until Stop or until the ctx given to Start ends.
package cluster

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/e2e/proc"
)

// Cluster is a running local Pinot cluster. Its methods are safe for concurrent use.
type Cluster struct {
	opts    Options
	ports   Ports
	name    string
	lib     string
	work    string
	ownWork bool
	root    string // repo root, for e2e/testdata
	log     *slog.Logger
	http    *http.Client

	zk, controller *proc.Proc
	servers        []*proc.Proc
	kafka          *proc.Proc // Options.Hybrid only
	kafkaLib       string     // Kafka's classpath dir

	mu       sync.Mutex // guards the fields below
	brokers  [MaxBrokers]*proc.Proc
	brokerS  [MaxBrokers]brokerSettings // per slot: a rollout restarts each broker with its own
	stopped  bool
	tables   []string
	stopOnce sync.Once
	stopErr  error
	unwatch  func() bool
}

// Start brings the cluster up and loads its tables; it returns only when every role is healthy,
// every table answers COUNT(*) with its row count through the broker and the small tables sit on
// the servers their names promise. On failure everything already started is stopped.
func Start(ctx context.Context, opts Options) (*Cluster, error) {
	opts = opts.withDefaults()
	if err := opts.check(); err != nil {
		return nil, fmt.Errorf("start cluster: %w", err)
	}
	begin := time.Now()
	c := &Cluster{
		opts:  opts,
		ports: portsFor(opts.BasePort),
		log:   opts.Logger,
		http:  &http.Client{Timeout: 5 * time.Minute},
	}
	for i := range c.brokerS {
		c.brokerS[i] = brokerSettings{jvmOpts: opts.BrokerJVMOpts, extraConf: opts.BrokerExtraConf}
	}
	c.name = opts.ClusterName
	if c.name == "" {
		c.name = fmt.Sprintf("WarmupE2E_%d_%d", opts.BasePort, os.Getpid())
	}
	if err := c.prepare(ctx); err != nil {
		c.Stop()
		return nil, err
	}
	if err := c.startRoles(ctx); err != nil {
		c.Stop()
		return nil, err
	}
	c.log.Info("pinot cluster up", "elapsed", time.Since(begin).Round(time.Millisecond), "broker", c.BrokerURL())
	loadBegin := time.Now()
	if err := c.loadTables(ctx); err != nil {
		c.Stop()
		return nil, err
	}
	c.log.Info("pinot tables loaded", "tables", c.Tables(), "elapsed", time.Since(loadBegin).Round(time.Millisecond))
	// The cluster belongs to ctx: a cancelled test or a Ctrl-C'd demo takes its JVMs with it.
	c.unwatch = context.AfterFunc(ctx, func() { c.Stop() })
	return c, nil
}

// prepare resolves the jars, the work dir and the port layout before any JVM starts.
func (c *Cluster) prepare(ctx context.Context) error {
	root, err := RepoRoot()
	if err != nil {
		return err
	}
	c.root = root
	if err := c.ports.checkFree(); err != nil {
		return fmt.Errorf("start cluster: %w", err)
	}
	c.lib = c.opts.PinotLibDir
	if c.lib == "" {
		if c.lib, err = InstallPinot(ctx, c.opts.ProcessOutput); err != nil {
			return err
		}
	}
	c.work = c.opts.WorkDir
	if c.work == "" {
		if c.work, err = os.MkdirTemp("", "pinot-e2e-"); err != nil {
			return fmt.Errorf("start cluster: work dir: %w", err)
		}
		c.ownWork = true
	} else if c.work, err = filepath.Abs(c.work); err != nil {
		return fmt.Errorf("start cluster: work dir: %w", err)
	}
	if err := os.MkdirAll(c.work, 0o755); err != nil {
		return fmt.Errorf("start cluster: work dir: %w", err)
	}
	c.log.Info("pinot cluster starting", "cluster", c.name, "lib", c.lib, "work", c.work, "basePort", c.opts.BasePort)
	return writeLog4j(c.work)
}

// startRoles starts ZooKeeper, then the controller, then both servers and the broker together:
// they only need the controller's cluster setup in ZooKeeper, and on 2 cores starting them in
// parallel roughly halves the wall time.
func (c *Cluster) startRoles(ctx context.Context) error {
	var err error
	zkAddr := c.zkAddress()
	if c.zk, err = c.startRole("zookeeper", nil, "StartZookeeper",
		"-zkPort", strconv.Itoa(c.ports.ZooKeeper), "-dataDir", filepath.Join(c.work, "zookeeper", "data")); err != nil {
		return err
	}
	if err := waitFor(ctx, c.zk, "zookeeper", c.opts.StartTimeout, tcpOpen(zkAddr)); err != nil {
		return err
	}
	if c.controller, err = c.startRole("controller", nil, "StartController",
		"-zkAddress", zkAddr, "-clusterName", c.name, "-controllerHost", loopback,
		"-controllerPort", strconv.Itoa(c.ports.Controller), "-dataDir", filepath.Join(c.work, "controller", "data")); err != nil {
		return err
	}
	if err := waitFor(ctx, c.controller, "controller /health", c.opts.StartTimeout, httpOK(c.http, c.ControllerURL()+"/health")); err != nil {
		return err
	}
	for i, sp := range c.ports.Servers {
		role := fmt.Sprintf("server%d", i+1)
		p, err := c.startRole(role, nil, "StartServer",
			"-zkAddress", zkAddr, "-clusterName", c.name, "-serverHost", loopback,
			"-serverPort", strconv.Itoa(sp.Netty), "-serverAdminPort", strconv.Itoa(sp.Admin),
			"-serverGrpcPort", strconv.Itoa(sp.GRPC),
			"-serverMultiStageServerPort", strconv.Itoa(sp.MultiStageServer),
			"-serverMultiStageRunnerPort", strconv.Itoa(sp.MultiStageRunner),
			"-dataDir", filepath.Join(c.work, role, "data"), "-segmentDir", filepath.Join(c.work, role, "segments"))
		if err != nil {
			return err
		}
		c.servers = append(c.servers, p)
	}
	for i := range c.opts.Brokers {
		c.mu.Lock()
		s := c.brokerS[i]
		c.mu.Unlock()
		if err := c.startBroker(i, s); err != nil {
			return err
		}
	}
	if c.opts.Hybrid {
		if err := c.startKafka(ctx); err != nil {
			return err
		}
	}
	for i, p := range c.servers {
		url := fmt.Sprintf("http://%s:%d/health", loopback, c.ports.Servers[i].Admin)
		if err := waitFor(ctx, p, p.Name+" /health", c.opts.StartTimeout, httpOK(c.http, url)); err != nil {
			return err
		}
	}
	for i := range c.opts.Brokers {
		if err := c.Broker(i).WaitHealthy(ctx); err != nil {
			return err
		}
	}
	return nil
}

func (c *Cluster) zkAddress() string {
	return net.JoinHostPort(loopback, strconv.Itoa(c.ports.ZooKeeper))
}

// Stop stops every JVM (SIGTERM, then SIGKILL after Options.StopGrace), waits for each to exit and
// removes the work dir if Start created it. It is idempotent and safe from t.Cleanup, a signal
// handler or ctx cancellation; later calls return the first call's result.
func (c *Cluster) Stop() error {
	c.stopOnce.Do(func() {
		c.mu.Lock()
		c.stopped = true
		brokers := c.brokers
		c.brokers = [MaxBrokers]*proc.Proc{}
		unwatch := c.unwatch
		c.mu.Unlock()
		if unwatch != nil {
			unwatch()
		}
		// Everything but ZooKeeper stops together; ZooKeeper last, or the others spend their grace
		// period retrying a vanished ZooKeeper instead of shutting down.
		var wg sync.WaitGroup
		for _, p := range append(append([]*proc.Proc{c.controller, c.kafka}, brokers[:]...), c.servers...) {
			if p != nil {
				wg.Go(func() { p.Stop(c.opts.StopGrace) })
			}
		}
		wg.Wait()
		if c.zk != nil {
			c.zk.Stop(c.opts.StopGrace)
		}
		if c.ownWork && !c.opts.KeepWorkDir && c.work != "" {
			if err := os.RemoveAll(c.work); err != nil {
				c.stopErr = fmt.Errorf("stop cluster: remove work dir: %w", err)
			}
		}
		c.log.Info("pinot cluster stopped", "cluster", c.name)
	})
	return c.stopErr
}

// PIDs returns the pid of every JVM the cluster started and has not yet seen exit, so tests can
// check that Stop left nothing behind.
func (c *Cluster) PIDs() []int {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []int
	for _, p := range append(append([]*proc.Proc{c.zk, c.controller, c.kafka}, c.brokers[:]...), c.servers...) {
		if p != nil && !p.Exited() {
			out = append(out, p.PID())
		}
	}
	return out
}

// Name is the Helix cluster name.
func (c *Cluster) Name() string { return c.name }

// Ports is the cluster's port layout.
func (c *Cluster) Ports() Ports { return c.ports }

// WorkDir holds configs, data and logs/<role>.log.
func (c *Cluster) WorkDir() string { return c.work }

// LibDir is the Pinot classpath dir in use.
func (c *Cluster) LibDir() string { return c.lib }

// ControllerURL is the controller's base URL, e.g. http://127.0.0.1:19001.
func (c *Cluster) ControllerURL() string {
	return fmt.Sprintf("http://%s:%d", loopback, c.ports.Controller)
}

// BrokerURL is the first broker's query listener, e.g. http://127.0.0.1:19002.
func (c *Cluster) BrokerURL() string { return c.Broker(0).URL() }

// BrokerInstanceID is the first broker's Helix instance id, as routing tables and /brokers/tables
// name it.
func (c *Cluster) BrokerInstanceID() string { return c.Broker(0).InstanceID() }

// ServerInstanceIDs are the servers' Helix instance ids: index 0 is "server 1", 1 is "server 2".
func (c *Cluster) ServerInstanceIDs() []string {
	ids := make([]string, len(c.ports.Servers))
	for i, s := range c.ports.Servers {
		ids[i] = fmt.Sprintf("Server_%s_%d", loopback, s.Netty)
	}
	return ids
}

// LogPath is the log file of a role: zookeeper, controller, server1, server2, kafka, or a broker
// (BrokerRole: broker, broker2...).
func (c *Cluster) LogPath(role string) string { return filepath.Join(c.work, "logs", role+".log") }

func (c *Cluster) checkRunning() error {
	if c.stopped {
		return errStopped
	}
	return nil
}
