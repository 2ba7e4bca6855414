// Package zkclient runs a load client that picks Pinot brokers the way Apache Pinot's own Java
// client does: the real pinot-java-client jar's DynamicBrokerSelector, reading the broker
// resource's external view in ZooKeeper, never a Kubernetes Service or readiness. A small Java
// program (ZkSelectLoad.java, embedded, compiled with the JDK's javac against the Pinot lib dir at
// Start) sends an open-loop load and records, per query, the broker it went to.
//
// Such a client sees a restarted broker as soon as its external view says ONLINE, warm or not:
// this package is how the project measures what that costs.
package zkclient

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/e2e/coldstart"
)

//go:embed ZkSelectLoad.java
var programSource []byte

const programClass = "ZkSelectLoad"

// Options configure a client.
type Options struct {
	// ZKAddress is ZooKeeper's host:port; Cluster the Helix cluster name. The client connects to
	// ZKAddress/Cluster, the URL ConnectionFactory.fromZookeeper takes.
	ZKAddress, Cluster string
	// LibDir holds the Pinot jars (scripts/install-pinot.sh's lib dir), pinot-java-client among them.
	LibDir string
	// JavaBin is the java executable; javac is taken from the same directory. Empty:
	// $JAVA_HOME/bin/java if JAVA_HOME is set, else java and javac on PATH.
	JavaBin string
	// WorkDir receives the compiled program, its inputs, records and log (zkclient.log). Empty: a
	// temp dir, removed by Stop.
	WorkDir string
	// Queries are sent in turn: arrival i sends Queries[i % len].
	Queries []string
	// QPS is the open-loop arrival rate, from Start on.
	QPS float64
	// Timeout is the client's: a query without an answer by then is cancelled (the transport's
	// brokerReadTimeoutMs). 0: coldstart.DefaultTimeout (2 s), the study's client.
	Timeout time.Duration
	// Logger receives the client's start and stop. Nil: slog.Default().
	Logger *slog.Logger
}

// startTimeout bounds the JVM's start and the selector's first read of the external view (the
// selector itself waits up to 60 s for ZooKeeper).
const startTimeout = 2 * time.Minute

func (o Options) check() error {
	var errs []error
	if o.ZKAddress == "" {
		errs = append(errs, errors.New("ZKAddress is empty: want ZooKeeper's host:port"))
	}
	if o.Cluster == "" {
		errs = append(errs, errors.New("Cluster is empty: want the Helix cluster name"))
	}
	if o.LibDir == "" {
		errs = append(errs, errors.New("LibDir is empty: want the Pinot lib dir (scripts/install-pinot.sh)"))
	} else if jars, _ := filepath.Glob(filepath.Join(o.LibDir, "pinot-java-client-*.jar")); len(jars) == 0 {
		errs = append(errs, fmt.Errorf("LibDir %s has no pinot-java-client jar", o.LibDir))
	}
	if len(o.Queries) == 0 {
		errs = append(errs, errors.New("Queries is empty: want at least one query"))
	}
	for i, q := range o.Queries {
		if strings.TrimSpace(q) == "" {
			errs = append(errs, fmt.Errorf("Queries[%d] is blank", i))
		}
	}
	if !(o.QPS > 0) {
		errs = append(errs, fmt.Errorf("QPS %v: want > 0", o.QPS))
	}
	if o.Timeout < 0 {
		errs = append(errs, fmt.Errorf("Timeout %s: want ≥ 0", o.Timeout))
	} else if o.Timeout > 0 && o.Timeout < time.Millisecond {
		errs = append(errs, fmt.Errorf("Timeout %s: want at least 1ms", o.Timeout))
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("zkclient options: %w", err)
	}
	return nil
}

// Client is a running load client (one JVM).
type Client struct {
	opts    Options
	log     *slog.Logger
	work    string
	ownWork bool
	cmd     *exec.Cmd
	done    chan struct{} // closed once the JVM is reaped
	waitErr error         // valid once done is closed
	unwatch func() bool

	stopOnce   sync.Once
	records    []Record
	selections []Selection
	stopErr    error
}

// Start compiles the program, starts its JVM and returns once the selector has read the external
// view and the load has begun. The JVM belongs to ctx too: when ctx ends it is stopped (Stop still
// returns what it recorded).
func Start(ctx context.Context, o Options) (*Client, error) {
	if err := o.check(); err != nil {
		return nil, err
	}
	if o.Timeout == 0 {
		o.Timeout = coldstart.DefaultTimeout
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	c := &Client{opts: o, log: o.Logger, work: o.WorkDir, done: make(chan struct{})}
	if err := c.prepare(ctx); err != nil {
		c.removeWork()
		return nil, err
	}
	if err := c.launch(ctx); err != nil {
		c.removeWork()
		return nil, err
	}
	c.unwatch = context.AfterFunc(ctx, func() { c.terminate() })
	return c, nil
}

// prepare makes the work dir, writes the program and its inputs and compiles it.
func (c *Client) prepare(ctx context.Context) error {
	var err error
	if c.work == "" {
		if c.work, err = os.MkdirTemp("", "zkclient-"); err != nil {
			return fmt.Errorf("zkclient: work dir: %w", err)
		}
		c.ownWork = true
	}
	if err := os.MkdirAll(filepath.Join(c.work, "classes"), 0o755); err != nil {
		return fmt.Errorf("zkclient: work dir: %w", err)
	}
	queries, err := json.Marshal(c.opts.Queries)
	if err != nil {
		return fmt.Errorf("zkclient: queries: %w", err)
	}
	for name, data := range map[string][]byte{
		programClass + ".java": programSource,
		"queries.json":         queries,
		"log4j2.xml":           []byte(log4j2Config),
	} {
		if err := os.WriteFile(filepath.Join(c.work, name), data, 0o644); err != nil {
			return fmt.Errorf("zkclient: write %s: %w", name, err)
		}
	}
	javac := exec.CommandContext(ctx, javacBin(c.opts.JavaBin), "-nowarn", "-cp", filepath.Join(c.opts.LibDir, "*"),
		"-d", filepath.Join(c.work, "classes"), filepath.Join(c.work, programClass+".java"))
	if out, err := javac.CombinedOutput(); err != nil {
		return fmt.Errorf("zkclient: compile %s.java: %w\n%s", programClass, err, out)
	}
	return nil
}

// launch starts the JVM and waits for its ready line.
func (c *Client) launch(ctx context.Context) error {
	logPath := filepath.Join(c.work, "zkclient.log")
	// O_APPEND: the JVM's stderr and the Go side's copy of its stdout share the file.
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_TRUNC|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("zkclient: log: %w", err)
	}
	ready := make(chan []string, 1)
	c.cmd = exec.Command(javaBin(c.opts.JavaBin), c.argv()...)
	c.cmd.Dir = c.work
	c.cmd.Stderr = logFile
	c.cmd.Stdout = &stdoutLines{ready: ready, rest: logFile}
	c.cmd.SysProcAttr = sysProcAttr()
	if err := c.cmd.Start(); err != nil {
		logFile.Close()
		return fmt.Errorf("zkclient: start java: %w", err)
	}
	go func() {
		c.waitErr = c.cmd.Wait()
		logFile.Close()
		close(c.done)
	}()
	c.log.Info("zkclient started", "pid", c.cmd.Process.Pid, "zk", c.zkURL(), "qps", c.opts.QPS, "timeout", c.opts.Timeout)

	timer := time.NewTimer(startTimeout)
	defer timer.Stop()
	select {
	case brokers := <-ready:
		c.log.Info("zkclient ready", "brokers", brokers)
		return nil
	case <-c.done:
		return fmt.Errorf("zkclient: java exited before ready (%v); log %s:\n%s", c.waitErr, logPath, tail(logPath, 30))
	case <-ctx.Done():
		c.terminate()
		return fmt.Errorf("zkclient: start: %w", ctx.Err())
	case <-timer.C:
		c.terminate()
		return fmt.Errorf("zkclient: not ready after %s; log %s:\n%s", startTimeout, logPath, tail(logPath, 30))
	}
}

// stdoutLines is the JVM's stdout: its first ready line goes to ready, every other line to rest
// (the log). os/exec copies into it from one goroutine, which Wait waits for.
type stdoutLines struct {
	ready chan<- []string
	rest  io.Writer
	buf   []byte
	sent  bool
}

func (w *stdoutLines) Write(p []byte) (int, error) {
	w.buf = append(w.buf, p...)
	for {
		i := bytes.IndexByte(w.buf, '\n')
		if i < 0 {
			return len(p), nil
		}
		line := w.buf[:i+1]
		var l struct {
			Ready   bool     `json:"ready"`
			Brokers []string `json:"brokers"`
		}
		if !w.sent && json.Unmarshal(line, &l) == nil && l.Ready {
			w.ready <- l.Brokers // buffered: never blocks, sent once
			w.sent = true
		} else if _, err := w.rest.Write(line); err != nil {
			return len(p), err
		}
		w.buf = w.buf[i+1:]
	}
}

func (c *Client) zkURL() string { return c.opts.ZKAddress + "/" + c.opts.Cluster }

func (c *Client) argv() []string {
	return []string{
		// A light JVM: the client shares the machine with the cluster it measures.
		"-Xms32m", "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
		"-Dlog4j2.configurationFile=" + filepath.Join(c.work, "log4j2.xml"),
		"-cp", filepath.Join(c.work, "classes") + string(os.PathListSeparator) + filepath.Join(c.opts.LibDir, "*"),
		programClass,
		"--zk", c.zkURL(),
		"--queries", filepath.Join(c.work, "queries.json"),
		"--qps", strconv.FormatFloat(c.opts.QPS, 'f', -1, 64),
		"--timeout-ms", strconv.FormatInt(c.opts.Timeout.Milliseconds(), 10),
		"--records", filepath.Join(c.work, "records.jsonl"),
		"--selections", filepath.Join(c.work, "selections.jsonl"),
	}
}

// PID is the client JVM's process id.
func (c *Client) PID() int { return c.cmd.Process.Pid }

// Stop ends the load: SIGTERM to the JVM (by its own pid: no new arrivals, queries in flight
// finish within the timeout, files flushed), SIGKILL if it outlives that, then returns every
// record sorted by send time. Later calls return the first call's result.
func (c *Client) Stop() ([]Record, error) {
	c.stopOnce.Do(func() {
		if c.unwatch != nil {
			c.unwatch()
		}
		c.terminate()
		c.records, c.selections, c.stopErr = c.read()
		if c.stopErr == nil && c.waitErr != nil && !signalled(c.waitErr) {
			c.stopErr = fmt.Errorf("zkclient: java exited: %v; log:\n%s", c.waitErr, tail(filepath.Join(c.work, "zkclient.log"), 30))
		}
		var lag time.Duration
		for _, r := range c.records {
			lag = max(lag, r.Sent.Sub(r.Due))
		}
		c.log.Info("zkclient stopped", "records", len(c.records), "max_generator_lag", lag)
		c.removeWork()
	})
	return c.records, c.stopErr
}

// Selections are the selector's broker lists over the run, each from the instant it changed;
// valid after Stop.
func (c *Client) Selections() []Selection { return c.selections }

// terminate stops the JVM and waits for it: SIGTERM, SIGKILL after the timeout plus a grace.
func (c *Client) terminate() {
	if c.cmd == nil || c.cmd.Process == nil {
		return
	}
	select {
	case <-c.done:
		return
	default:
	}
	signal(c.cmd.Process, syscall.SIGTERM)
	t := time.NewTimer(c.opts.Timeout + 10*time.Second)
	defer t.Stop()
	select {
	case <-c.done:
	case <-t.C:
		c.log.Warn("zkclient did not stop on SIGTERM: killed", "pid", c.cmd.Process.Pid)
		signal(c.cmd.Process, syscall.SIGKILL)
		<-c.done
	}
}

func (c *Client) read() ([]Record, []Selection, error) {
	records, err := readFile(filepath.Join(c.work, "records.jsonl"), readRecords)
	if err != nil {
		return records, nil, fmt.Errorf("zkclient: records: %w", err)
	}
	selections, err := readFile(filepath.Join(c.work, "selections.jsonl"), readSelections)
	if err != nil {
		return records, selections, fmt.Errorf("zkclient: selections: %w", err)
	}
	return records, selections, nil
}

func readFile[T any](path string, parse func(io.Reader) ([]T, error)) ([]T, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return parse(f)
}

func (c *Client) removeWork() {
	if c.ownWork && c.work != "" {
		if err := os.RemoveAll(c.work); err != nil {
			c.log.Warn("zkclient: remove work dir", "dir", c.work, "err", err)
		}
	}
}

func javaBin(bin string) string {
	if bin != "" {
		return bin
	}
	if home := os.Getenv("JAVA_HOME"); home != "" {
		return filepath.Join(home, "bin", "java")
	}
	return "java"
}

// javacBin is javac beside the java in use (a JDK's bin holds both).
func javacBin(bin string) string {
	java := javaBin(bin)
	if !strings.ContainsRune(java, filepath.Separator) {
		return "javac"
	}
	return filepath.Join(filepath.Dir(java), "javac")
}

// tail is the last n lines of a log, to put the JVM's own words into errors.
func tail(path string, n int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Sprintf("(no log: %v)", err)
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// log4j2Config: the client's own log (the selector's refreshes, the transport's warnings) to stderr,
// which the harness writes to zkclient.log.
const log4j2Config = `<?xml version="1.0" encoding="UTF-8"?>
<Configuration>
  <Appenders>
    <Console name="console" target="SYSTEM_ERR">
      <PatternLayout pattern="%d{HH:mm:ss.SSS} %p [%c{1}] [%t] %m%n"/>
    </Console>
  </Appenders>
  <Loggers>
    <Root level="warn"><AppenderRef ref="console"/></Root>
    <Logger name="org.apache.pinot.client" level="info" additivity="false"><AppenderRef ref="console"/></Logger>
  </Loggers>
</Configuration>
`
