package cluster

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// brokerSettings are what may change between broker (re)starts.
type brokerSettings struct {
	jvmOpts   []string
	extraConf []string
	nice      int
	java      string // the java executable; empty: the cluster's (Options.JavaBin)
	// imagePlugins: start the broker with the official image's plugin layout (WithImagePlugins).
	imagePlugins bool
}

// BrokerOption changes the broker's settings for this and later (re)starts.
type BrokerOption func(*brokerSettings)

// WithBrokerJVMOpts replaces Options.BrokerJVMOpts.
func WithBrokerJVMOpts(opts ...string) BrokerOption {
	return func(s *brokerSettings) { s.jvmOpts = slices.Clone(opts) }
}

// WithBrokerNice runs the broker JVM at this nice value (0–19; 0: as the other roles), so the
// other roles and the load get the CPU first, as they would on nodes of their own.
func WithBrokerNice(n int) BrokerOption {
	return func(s *brokerSettings) { s.nice = n }
}

// WithBrokerJava runs the broker on this java executable (a JDK's bin/java), while the other
// roles keep the cluster's: a JDK measured on the broker alone. Empty: the cluster's again.
func WithBrokerJava(bin string) BrokerOption {
	return func(s *brokerSettings) { s.java = bin }
}

// WithImagePlugins starts the broker as the official image's bin/pinot-admin.sh does: the plugin
// jars also in a plugins dir (<work>/plugins/<group>/<plugin>/), each appended to the class path
// after lib/*, and -Dplugins.dir naming that dir (Pinot's PluginManager then gives each plugin dir
// a PluginClassLoader). Off: the harness's lib/* alone.
func WithImagePlugins(on bool) BrokerOption {
	return func(s *brokerSettings) { s.imagePlugins = on }
}

// WithBrokerExtraConf replaces Options.BrokerExtraConf (lines "key=value").
func WithBrokerExtraConf(lines ...string) BrokerOption {
	return func(s *brokerSettings) { s.extraConf = slices.Clone(lines) }
}

// brokerConf is broker i's config file. StartBroker ignores its CLI flags when given a config
// file, so the file carries the cluster, ZooKeeper and listener settings too; the host is pinned
// so the instance id stays Broker_127.0.0.1_<port> across restarts.
func (c *Cluster) brokerConf(i int, s brokerSettings) string {
	bp := c.ports.Brokers[i]
	lines := []string{
		"pinot.cluster.name=" + c.name,
		"pinot.zk.server=" + c.zkAddress(),
		"pinot.broker.hostname=" + loopback,
		"pinot.broker.client.queryPort=" + strconv.Itoa(bp.Query),
		"pinot.query.runner.port=" + strconv.Itoa(bp.Runner),
	}
	lines = append(lines, s.extraConf...)
	return strings.Join(lines, "\n") + "\n"
}

// BrokerRole is broker i's role name: its log is logs/<role>.log, its dir <work>/<role>. The first
// broker is "broker", as in a one-broker cluster; the others "broker2", "broker3"...
func BrokerRole(i int) string {
	if i == 0 {
		return "broker"
	}
	return "broker" + strconv.Itoa(i+1)
}

// Broker is one broker slot of the cluster (Cluster.Broker): its ports are fixed, its JVM may be
// running or not. The slot's settings (JVM options, extra config, nice) persist across restarts.
type Broker struct {
	c *Cluster
	i int
}

// Broker is slot i (0 ≤ i < MaxBrokers); it panics on an index outside that range, a caller's bug.
func (c *Cluster) Broker(i int) Broker {
	if i < 0 || i >= MaxBrokers {
		panic(fmt.Sprintf("cluster: broker slot %d: want 0–%d", i, MaxBrokers-1))
	}
	return Broker{c: c, i: i}
}

// Brokers is the number of brokers the cluster started with (Options.Brokers).
func (c *Cluster) Brokers() int { return c.opts.Brokers }

// Index is the slot's number, 0 for the first broker.
func (b Broker) Index() int { return b.i }

// Role is the slot's role name (BrokerRole).
func (b Broker) Role() string { return BrokerRole(b.i) }

// Ports are the slot's listeners.
func (b Broker) Ports() BrokerPorts { return b.c.ports.Brokers[b.i] }

// URL is the broker's query listener, e.g. http://127.0.0.1:19002.
func (b Broker) URL() string { return fmt.Sprintf("http://%s:%d", loopback, b.Ports().Query) }

// Address is the query listener's host:port.
func (b Broker) Address() string { return net.JoinHostPort(loopback, strconv.Itoa(b.Ports().Query)) }

// InstanceID is the broker's Helix instance id, as routing tables and /brokers/tables name it.
func (b Broker) InstanceID() string { return fmt.Sprintf("Broker_%s_%d", loopback, b.Ports().Query) }

// LogPath is the broker's log file (every start of the slot appends to it).
func (b Broker) LogPath() string { return b.c.LogPath(b.Role()) }

// startBroker writes slot i's config and starts its JVM; it does not wait for anything.
func (c *Cluster) startBroker(i int, s brokerSettings) error {
	role := BrokerRole(i)
	conf := filepath.Join(c.work, role, "pinot-broker.conf")
	if err := os.MkdirAll(filepath.Dir(conf), 0o755); err != nil {
		return fmt.Errorf("start %s: %w", role, err)
	}
	if err := os.WriteFile(conf, []byte(c.brokerConf(i, s)), 0o644); err != nil {
		return fmt.Errorf("start %s: write config: %w", role, err)
	}
	opts, cp := s.jvmOpts, []string(nil)
	if s.imagePlugins {
		dir, plugins, err := c.layImagePlugins()
		if err != nil {
			return fmt.Errorf("start %s: %w", role, err)
		}
		pluginOpts, pluginCP := ImagePluginArgs(dir, plugins)
		opts, cp = append(slices.Clone(opts), pluginOpts...), pluginCP
	}
	p, err := c.startRoleJVM(role, s.java, s.nice, opts, cp, "StartBroker", "-configFileName", conf)
	if err != nil {
		return err
	}
	c.mu.Lock()
	if c.stopped { // Stop ran while we were starting: do not leak the new JVM
		c.mu.Unlock()
		p.Stop(0)
		return errStopped
	}
	c.brokers[i] = p
	c.mu.Unlock()
	return nil
}

// Start starts the slot's broker (again) with opts applied to its settings; it returns once the
// process exists, before its HTTP listener is up.
func (b Broker) Start(ctx context.Context, opts ...BrokerOption) error {
	c := b.c
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("start %s: %w", b.Role(), err)
	}
	c.mu.Lock()
	if err := c.checkRunning(); err != nil {
		c.mu.Unlock()
		return fmt.Errorf("start %s: %w", b.Role(), err)
	}
	if p := c.brokers[b.i]; p != nil {
		c.mu.Unlock()
		return fmt.Errorf("start %s: already running (pid %d)", b.Role(), p.PID())
	}
	for _, o := range opts {
		o(&c.brokerS[b.i])
	}
	s := c.brokerS[b.i]
	c.mu.Unlock()
	return c.startBroker(b.i, s)
}

// Kill SIGKILLs the broker and waits for it to exit. No-op if it is not running.
//
// Unless Options.KeepStaleBrokerSession, it then deletes the dead broker's Helix live-instance
// znode: that node outlives the JVM until its ZooKeeper session expires, and a new broker with the
// same instance id that finds it sleeps session timeout + 5 s (35 s) before registering.
func (b Broker) Kill() error {
	if err := b.take(context.Background(), 0); err != nil {
		return fmt.Errorf("kill %s: %w", b.Role(), err)
	}
	return nil
}

// Terminate stops the broker as a kubelet stops a container: SIGTERM (the broker reports
// SHUTTING_DOWN and keeps serving for pinot.broker.delayShutdownTimeMs, then leaves Helix), SIGKILL
// if it has not exited after grace. It returns once the JVM is gone.
func (b Broker) Terminate(ctx context.Context, grace time.Duration) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("stop %s: %w", b.Role(), err)
	}
	if err := b.take(ctx, grace); err != nil {
		return fmt.Errorf("stop %s: %w", b.Role(), err)
	}
	return nil
}

func (b Broker) take(ctx context.Context, grace time.Duration) error {
	c := b.c
	c.mu.Lock()
	p := c.brokers[b.i]
	c.brokers[b.i] = nil
	stopped := c.stopped
	c.mu.Unlock()
	if stopped {
		return errStopped
	}
	if p == nil {
		return nil
	}
	p.Stop(grace)
	if c.opts.KeepStaleBrokerSession {
		return nil
	}
	return c.forgetDeadBroker(ctx, b.InstanceID())
}

// PID is the running broker JVM's pid, 0 when there is none.
func (b Broker) PID() int {
	c := b.c
	c.mu.Lock()
	defer c.mu.Unlock()
	if p := c.brokers[b.i]; p != nil && !p.Exited() {
		return p.PID()
	}
	return 0
}

// WaitHealthy waits until the broker's GET /health answers 200 (GOOD: routing built for all of its
// tables), within Options.StartTimeout. It fails at once if the broker JVM exits.
func (b Broker) WaitHealthy(ctx context.Context) error {
	c := b.c
	c.mu.Lock()
	p := c.brokers[b.i]
	c.mu.Unlock()
	if p == nil {
		return fmt.Errorf("wait %s healthy: not running", b.Role())
	}
	return waitFor(ctx, p, b.Role()+" /health", c.opts.StartTimeout, httpOK(c.http, b.URL()+"/health"))
}

// forgetDeadBroker removes /<cluster>/LIVEINSTANCES/<id> through the controller's ZooKeeper API (a
// 404 means it is already gone: graceful shutdown or expired session). Only valid once the broker
// process has exited, or it would unregister a live broker.
func (c *Cluster) forgetDeadBroker(ctx context.Context, id string) error {
	path := fmt.Sprintf("/%s/LIVEINSTANCES/%s", c.name, id)
	u := c.ControllerURL() + "/zk/delete?path=" + url.QueryEscape(path)
	req, err := http.NewRequestWithContext(ctx, http.MethodDelete, u, nil)
	if err != nil {
		return err
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("delete stale live instance %s: %w", path, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusNotFound {
		return fmt.Errorf("delete stale live instance %s: HTTP %d: %s", path, resp.StatusCode, strings.TrimSpace(string(body)))
	}
	return nil
}

// The methods below act on the first broker, the only one of a one-broker cluster.

// RestartBroker SIGKILLs the first broker (a crash, not a graceful shutdown) and starts a fresh JVM
// on the same ports in the same cluster, with opts applied: KillBroker then StartBroker. It returns
// as soon as the new process exists, before its HTTP listener is up: callers observe the
// connection-refused and not-yet-healthy phases themselves, then call WaitBrokerHealthy.
func (c *Cluster) RestartBroker(ctx context.Context, opts ...BrokerOption) error {
	if err := c.KillBroker(); err != nil {
		return fmt.Errorf("restart broker: %w", err)
	}
	return c.StartBroker(ctx, opts...)
}

// StartBroker starts the first broker after StopBroker/KillBroker; it returns once the process exists.
func (c *Cluster) StartBroker(ctx context.Context, opts ...BrokerOption) error {
	return c.Broker(0).Start(ctx, opts...)
}

// KillBroker SIGKILLs the first broker and waits for it to exit (Broker.Kill).
func (c *Cluster) KillBroker() error { return c.Broker(0).Kill() }

// StopBroker stops the first broker gracefully: SIGTERM (the broker reports SHUTTING_DOWN and keeps
// serving for pinot.broker.delayShutdownTimeMs), SIGKILL after Options.StopGrace.
func (c *Cluster) StopBroker(ctx context.Context) error {
	return c.Broker(0).Terminate(ctx, c.opts.StopGrace)
}

// BrokerPID is the first broker JVM's pid, 0 when there is none.
func (c *Cluster) BrokerPID() int { return c.Broker(0).PID() }

// WaitBrokerHealthy waits until the first broker's GET /health answers 200 (Broker.WaitHealthy).
func (c *Cluster) WaitBrokerHealthy(ctx context.Context) error { return c.Broker(0).WaitHealthy(ctx) }
