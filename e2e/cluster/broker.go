package cluster

import (
	"context"
	"fmt"
	"io"
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

// WithBrokerExtraConf replaces Options.BrokerExtraConf (lines "key=value").
func WithBrokerExtraConf(lines ...string) BrokerOption {
	return func(s *brokerSettings) { s.extraConf = slices.Clone(lines) }
}

func (c *Cluster) brokerSettingsNow() brokerSettings {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.brokerS
}

// brokerConf is the broker's config file. StartBroker ignores its CLI flags when given a config
// file, so the file carries the cluster, ZooKeeper and listener settings too; the host is pinned
// so the instance id stays Broker_127.0.0.1_<port> across restarts.
func (c *Cluster) brokerConf(s brokerSettings) string {
	lines := []string{
		"pinot.cluster.name=" + c.name,
		"pinot.zk.server=" + c.zkAddress(),
		"pinot.broker.hostname=" + loopback,
		"pinot.broker.client.queryPort=" + strconv.Itoa(c.ports.Broker),
		"pinot.query.runner.port=" + strconv.Itoa(c.ports.BrokerRunner),
	}
	lines = append(lines, s.extraConf...)
	return strings.Join(lines, "\n") + "\n"
}

// startBroker writes the config and starts the broker JVM; it does not wait for anything.
func (c *Cluster) startBroker(s brokerSettings) error {
	conf := filepath.Join(c.work, "broker", "pinot-broker.conf")
	if err := os.MkdirAll(filepath.Dir(conf), 0o755); err != nil {
		return fmt.Errorf("start broker: %w", err)
	}
	if err := os.WriteFile(conf, []byte(c.brokerConf(s)), 0o644); err != nil {
		return fmt.Errorf("start broker: write config: %w", err)
	}
	p, err := c.startRoleNice("broker", s.nice, s.jvmOpts, "StartBroker", "-configFileName", conf)
	if err != nil {
		return err
	}
	c.mu.Lock()
	if c.stopped { // Stop ran while we were starting: do not leak the new JVM
		c.mu.Unlock()
		p.stop(0)
		return errStopped
	}
	c.broker = p
	c.mu.Unlock()
	return nil
}

// RestartBroker SIGKILLs the broker (a crash, not a graceful shutdown) and starts a fresh JVM on
// the same ports in the same cluster, with opts applied: KillBroker then StartBroker. It returns as
// soon as the new process exists, before its HTTP listener is up: callers observe the
// connection-refused and not-yet-healthy phases themselves, then call WaitBrokerHealthy.
func (c *Cluster) RestartBroker(ctx context.Context, opts ...BrokerOption) error {
	if err := c.KillBroker(); err != nil {
		return fmt.Errorf("restart broker: %w", err)
	}
	return c.StartBroker(ctx, opts...)
}

// forgetDeadBroker removes /<cluster>/LIVEINSTANCES/<broker id> through the controller's ZooKeeper
// API (a 404 means it is already gone: graceful shutdown or expired session). Only valid once the
// broker process has exited, or it would unregister a live broker.
func (c *Cluster) forgetDeadBroker(ctx context.Context) error {
	path := fmt.Sprintf("/%s/LIVEINSTANCES/%s", c.name, c.BrokerInstanceID())
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

// StartBroker starts the broker after StopBroker/KillBroker; it returns once the process exists.
func (c *Cluster) StartBroker(ctx context.Context, opts ...BrokerOption) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("start broker: %w", err)
	}
	c.mu.Lock()
	if err := c.checkRunning(); err != nil {
		c.mu.Unlock()
		return fmt.Errorf("start broker: %w", err)
	}
	if c.broker != nil {
		c.mu.Unlock()
		return fmt.Errorf("start broker: already running (pid %d)", c.broker.pid())
	}
	for _, o := range opts {
		o(&c.brokerS)
	}
	s := c.brokerS
	c.mu.Unlock()
	return c.startBroker(s)
}

// KillBroker SIGKILLs the broker and waits for it to exit. No-op if it is not running.
//
// Unless Options.KeepStaleBrokerSession, it then deletes the dead broker's Helix live-instance
// znode: that node outlives the JVM until its ZooKeeper session expires, and a new broker with the
// same instance id that finds it sleeps session timeout + 5 s (35 s) before registering.
func (c *Cluster) KillBroker() error {
	if err := c.takeBroker(context.Background(), 0); err != nil {
		return fmt.Errorf("kill broker: %w", err)
	}
	return nil
}

// StopBroker stops the broker gracefully: SIGTERM (the broker reports SHUTTING_DOWN and keeps
// serving for pinot.broker.delayShutdownTimeMs), SIGKILL after Options.StopGrace.
func (c *Cluster) StopBroker(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("stop broker: %w", err)
	}
	if err := c.takeBroker(ctx, c.opts.StopGrace); err != nil {
		return fmt.Errorf("stop broker: %w", err)
	}
	return nil
}

func (c *Cluster) takeBroker(ctx context.Context, grace time.Duration) error {
	c.mu.Lock()
	p := c.broker
	c.broker = nil
	stopped := c.stopped
	c.mu.Unlock()
	if stopped {
		return errStopped
	}
	if p == nil {
		return nil
	}
	p.stop(grace)
	if c.opts.KeepStaleBrokerSession {
		return nil
	}
	return c.forgetDeadBroker(ctx)
}

// BrokerPID is the running broker JVM's pid, 0 when there is none.
func (c *Cluster) BrokerPID() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.broker == nil || c.broker.exited() {
		return 0
	}
	return c.broker.pid()
}

// WaitBrokerHealthy waits until the broker's GET /health answers 200 (GOOD: routing built for all
// of its tables), within Options.StartTimeout. It fails at once if the broker JVM exits.
func (c *Cluster) WaitBrokerHealthy(ctx context.Context) error {
	c.mu.Lock()
	p := c.broker
	c.mu.Unlock()
	if p == nil {
		return fmt.Errorf("wait broker healthy: broker not running")
	}
	return waitFor(ctx, p, "broker /health", c.opts.StartTimeout, httpOK(c.http, c.BrokerURL()+"/health"))
}
