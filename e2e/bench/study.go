// Package bench runs the cold-start study on the local real Pinot cluster of e2e/cluster:
// it restarts the broker JVM (cluster kept) once per arm and restart, starts the sidecar
// binary for the ON arms, waits for the arm's Ready signal and measures the load that
// follows with e2e/coldstart. e2e/cmd/coldstart-bench's study and calibrate commands call it.
package bench

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/e2e/cluster"
	"github.com/warmup-sidecar/warmup-sidecar/e2e/coldstart"
)

// ChartBrokerJVMOpts are the official Helm chart's broker JAVA_OPTS (helm/pinot 1.5.1, see
// shared/fixtures/pinot-helm/default.yaml) less its container paths: 2 processors, 256 MiB–1 GiB
// heap, G1 with a 200 ms pause goal. The study adds a per-restart GC log.
var ChartBrokerJVMOpts = []string{"-XX:ActiveProcessorCount=2", "-Xms256M", "-Xmx1G",
	"-XX:+UseG1GC", "-XX:MaxGCPauseMillis=200", "-Djute.maxbuffer=4000000"}

// C1OnlyOpt stops the broker's JIT at C1 (the chart's brokerJvm.c1Only): the on_c1 arm.
const C1OnlyOpt = "-XX:TieredStopAtLevel=1"

// DefaultBasePort keeps the study's cluster clear of the e2e tests' (cluster.DefaultBasePort).
const DefaultBasePort = 29000

// Config is one study.
type Config struct {
	Arms     []string // default: coldstart.DefaultArms
	Restarts int      // per arm
	Rate     float64  // arrivals/s; 0: calibrate first (coldstart.Calibrate)
	// RateFractions of the warm capacity the calibration tries (nil: coldstart.DefaultFractions).
	RateFractions []float64
	Cold          time.Duration // cold window [0, Cold)
	WarmStart     time.Duration // warm window [WarmStart, WarmEnd); the load runs [0, WarmEnd)
	WarmEnd       time.Duration
	Timeout       time.Duration // client timeout (2 s)
	Mix           coldstart.Mix // nil: the builtin mix, coldstart.DefaultMix(cluster.TableBench)
	MixName       string        // recorded in the study (coldstart.MixNames; empty for a queries file)
	// Settle is the pause between one restart's end and the next restart.
	Settle time.Duration

	BasePort      int
	BrokerJVMOpts []string // nil: ChartBrokerJVMOpts
	// ArmBrokerJVMOpts are added to one arm's restarted brokers, after BrokerJVMOpts (so they
	// win): a JVM setting measured interleaved against the same sidecar in another arm (e.g.
	// on_baseline running this build, --baseline-sidecar).
	ArmBrokerJVMOpts map[string][]string
	// ArmBrokerJava runs one arm's restarted brokers on another JDK: a JDK home or its bin/java
	// (the other arms' brokers and every other role keep the machine's). AOT arms need one
	// (JDK 25+): the cache is made and used by that JDK.
	ArmBrokerJava map[string]string
	BenchRows     int // 0: the harness default (1,000,000)
	BenchSegments int // 0: the harness default (8)
	// SidecarEnv is added to every ON arm's WARMUP_* environment (e.g. WARMUP_BUDGET), over
	// the arm's own settings.
	SidecarEnv map[string]string
	// ArmEnv is added to one arm's environment, over SidecarEnv (e.g. a longer WARMUP_BUDGET
	// for on_jit only, so the others keep the defaults).
	ArmEnv map[string]map[string]string
	// BaselineSidecar is the warmup-sidecar binary the on_baseline arm runs with its defaults
	// (built from the revision a change is measured against); required by that arm only.
	BaselineSidecar string
	// BrokerJMXAgent runs every restarted broker with the Prometheus JMX exporter java agent
	// (as Pinot's image can), so every arm meets the same JVM; the on_jit arm needs it.
	BrokerJMXAgent bool
	// BrokerNice runs every restarted broker at this nice value (0–19), so the servers, ZooKeeper,
	// the controller and the load generator get their CPU first, as on nodes of their own: what
	// the co-located roles add to a cold broker's tail. 0: all alike, the study's default.
	BrokerNice int
	// Calibration: closed-loop levels and step length.
	CalibrationLevels []int
	CalibrationStep   time.Duration

	// WorkDir keeps the cluster's logs, the GC logs, sidecar logs and raw traces; empty: a
	// temp dir, removed at the end unless KeepWorkDir.
	WorkDir     string
	KeepWorkDir bool
	Smoke       bool
	Command     string // recorded in the study
	Logger      *slog.Logger
	Progress    io.Writer // JVM output echo and install progress (may be nil)
}

func (c Config) withDefaults() Config {
	if len(c.Arms) == 0 {
		c.Arms = slices.Clone(coldstart.DefaultArms)
	}
	c.Restarts = cmp.Or(c.Restarts, 5)
	c.Cold = cmp.Or(c.Cold, 8*time.Second)
	c.WarmStart = cmp.Or(c.WarmStart, 60*time.Second)
	c.WarmEnd = cmp.Or(c.WarmEnd, 75*time.Second)
	c.Timeout = cmp.Or(c.Timeout, coldstart.DefaultTimeout)
	if c.Mix == nil {
		c.Mix, c.MixName = coldstart.DefaultMix(cluster.TableBench), coldstart.MixBuiltin
	}
	c.Settle = cmp.Or(c.Settle, 5*time.Second)
	c.BasePort = cmp.Or(c.BasePort, DefaultBasePort)
	if c.BrokerJVMOpts == nil {
		c.BrokerJVMOpts = ChartBrokerJVMOpts
	}
	if len(c.CalibrationLevels) == 0 {
		c.CalibrationLevels = []int{1, 2, 4, 8, 16, 32}
	}
	c.CalibrationStep = cmp.Or(c.CalibrationStep, 6*time.Second)
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	return c
}

func (c Config) check() error {
	for _, a := range c.Arms {
		if !slices.Contains(coldstart.ArmOrder, coldstart.ArmBase(a)) {
			return fmt.Errorf("arm %q: want one of %s, or one of them with a .label (on_default.jdk25)", a, strings.Join(coldstart.ArmOrder, ", "))
		}
		if coldstart.IsAOTArm(a) && c.ArmBrokerJava[a] == "" {
			return fmt.Errorf("arm %s: give its broker a JDK 25+ (--arm-broker-java %s:/usr/lib/jvm/<jdk>): the AOT cache is made and read by that JDK", a, a)
		}
	}
	if err := checkArmJava(c.ArmBrokerJava, c.Arms); err != nil {
		return err
	}
	switch {
	case c.Restarts < 1:
		return fmt.Errorf("restarts %d: want ≥ 1", c.Restarts)
	case c.Rate < 0:
		return fmt.Errorf("rate %g: want ≥ 0 (0: calibrate)", c.Rate)
	case c.Cold <= 0 || c.WarmStart < c.Cold || c.WarmEnd <= c.WarmStart:
		return fmt.Errorf("windows cold [0,%s) warm [%s,%s): want 0 < cold ≤ warm start < warm end", c.Cold, c.WarmStart, c.WarmEnd)
	case c.Timeout <= 0:
		return fmt.Errorf("timeout %s: want > 0", c.Timeout)
	case c.BrokerNice < 0 || c.BrokerNice > 19:
		return fmt.Errorf("broker nice %d: want 0–19", c.BrokerNice)
	}
	for a, opts := range c.ArmBrokerJVMOpts {
		if !slices.Contains(c.Arms, a) {
			return fmt.Errorf("broker JVM options for %s: want an arm of this study (%s)", a, strings.Join(c.Arms, ", "))
		}
		if o, bad := notJVMOpt(opts); bad {
			return fmt.Errorf("broker JVM option %q for %s: want a JVM option (starting with -)", o, a)
		}
	}
	for a := range c.ArmEnv {
		if !slices.Contains(c.Arms, a) || a == coldstart.ArmOff {
			return fmt.Errorf("arm settings for %s: want an ON arm of this study (%s)", a, strings.Join(c.Arms, ", "))
		}
	}
	if slices.Contains(c.Arms, coldstart.ArmOnJIT) && !c.BrokerJMXAgent {
		return fmt.Errorf("arm %s: run the broker with the JMX exporter agent (--broker-jmx-agent)", coldstart.ArmOnJIT)
	}
	return c.checkBaseline()
}

// checkBaseline: the on_baseline arm needs an executable binary, and the binary needs the arm.
func (c Config) checkBaseline() error {
	arm := slices.Contains(c.Arms, coldstart.ArmOnBaseline)
	switch {
	case arm && c.BaselineSidecar == "":
		return fmt.Errorf("arm %s: set the baseline sidecar binary (--baseline-sidecar)", coldstart.ArmOnBaseline)
	case !arm && c.BaselineSidecar != "":
		return fmt.Errorf("baseline sidecar %s: no arm %s runs it", c.BaselineSidecar, coldstart.ArmOnBaseline)
	case !arm:
		return nil
	}
	fi, err := os.Stat(c.BaselineSidecar)
	if err != nil {
		return fmt.Errorf("baseline sidecar: %w", err)
	}
	if !fi.Mode().IsRegular() || fi.Mode().Perm()&0o111 == 0 {
		return fmt.Errorf("baseline sidecar %s: want an executable file (a warmup-sidecar build)", c.BaselineSidecar)
	}
	return nil
}

// Env is a started study environment: the cluster and the sidecar binary.
type Env struct {
	cfg     Config
	machine coldstart.Machine // read before anything of the study ran
	Cluster *cluster.Cluster
	sidecar string
	// agentOpts load the JMX exporter agent into every restarted broker (Config.BrokerJMXAgent).
	agentOpts []string
	work      string
	ownWork   bool
	version   string
}

// Setup starts the cluster with the benchmark table and builds the sidecar.
func Setup(ctx context.Context, cfg Config) (*Env, error) {
	cfg = cfg.withDefaults()
	if err := cfg.check(); err != nil {
		return nil, fmt.Errorf("study: %w", err)
	}
	e := &Env{cfg: cfg, work: cfg.WorkDir, machine: coldstart.DescribeMachine()}
	if e.work == "" {
		dir, err := os.MkdirTemp("", "coldstart-bench-")
		if err != nil {
			return nil, fmt.Errorf("study: work dir: %w", err)
		}
		e.work, e.ownWork = dir, true
	}
	for _, d := range []string{"bin", "gc", "raw", "logs"} {
		if err := os.MkdirAll(filepath.Join(e.work, d), 0o755); err != nil {
			return nil, fmt.Errorf("study: %w", err)
		}
	}
	log := cfg.Logger
	bin, err := BuildSidecar(ctx, filepath.Join(e.work, "bin"))
	if err != nil {
		e.Close()
		return nil, err
	}
	e.sidecar = bin
	lib, err := cluster.InstallPinot(ctx, cfg.Progress)
	if err != nil {
		e.Close()
		return nil, err
	}
	e.version = pinotVersion(lib)
	var agentJar string
	if cfg.BrokerJMXAgent {
		if agentJar, err = cluster.InstallJMXAgent(ctx, cfg.Progress); err != nil {
			e.Close()
			return nil, fmt.Errorf("study: %w", err)
		}
	}
	log.Info("starting pinot cluster", "version", e.version, "basePort", cfg.BasePort, "work", e.work)
	opts := cluster.Options{
		PinotLibDir:   lib,
		WorkDir:       filepath.Join(e.work, "cluster"),
		BasePort:      cfg.BasePort,
		Logger:        log,
		BenchTable:    true,
		BenchRows:     cfg.BenchRows,
		BenchSegments: cfg.BenchSegments,
		// %p: the JVM's pid, so each broker of a fleet writes its own GC log.
		BrokerJVMOpts: e.brokerOpts("", "initial-%p"),
	}
	c, err := cluster.Start(ctx, opts)
	if err != nil && ctx.Err() == nil {
		// One retry on a fresh work dir: the controller's ingestFromFile names its working dir
		// after the current millisecond, so two segment uploads landing in the same one can
		// fail each other (seen with the harness's parallel ingestion).
		log.Warn("cluster start failed; retrying once on a fresh work dir", "error", err)
		if rmErr := os.RemoveAll(opts.WorkDir); rmErr != nil {
			e.Close()
			return nil, fmt.Errorf("study: %w (and clearing %s: %v)", err, opts.WorkDir, rmErr)
		}
		c, err = cluster.Start(ctx, opts)
	}
	if err != nil {
		e.Close()
		return nil, fmt.Errorf("study: %w", err)
	}
	e.Cluster = c
	if agentJar != "" {
		// The first broker (calibration, warm-up) runs without it: it is never measured.
		if e.agentOpts, err = c.BrokerJMXAgentOpts(agentJar); err != nil {
			e.Close()
			return nil, fmt.Errorf("study: %w", err)
		}
	}
	if err := e.checkMix(ctx); err != nil {
		e.Close()
		return nil, err
	}
	return e, nil
}

// Close stops the cluster and removes the work dir if Setup made it and it is not kept.
func (e *Env) Close() {
	if e.Cluster != nil {
		_ = e.Cluster.Stop()
	}
	if e.ownWork && !e.cfg.KeepWorkDir {
		_ = os.RemoveAll(e.work)
	}
}

// WorkDir holds logs, GC logs and raw traces.
func (e *Env) WorkDir() string { return e.work }

// PinotVersion is the version of the jars in use.
func (e *Env) PinotVersion() string { return e.version }

// brokerOpts are the JVM options of a broker started for arm (empty: the first broker, which
// calibrates and warms the servers), tag naming its GC log. on_c1 adds the C1-only flag before
// the arm's own options (which can still override it).
func (e *Env) brokerOpts(arm, tag string) []string {
	gc := filepath.Join(e.work, "gc", "broker-"+tag+".log")
	opts := append(slices.Clone(e.cfg.BrokerJVMOpts), e.agentOpts...)
	opts = append(opts, e.armOpts(arm)...)
	return append(opts, "-Xlog:gc*:file="+gc+":time,uptime,level,tags")
}

// armOpts are what arm's brokers run with beyond the study's options: the C1-only flag for
// on_c1, then the arm's --arm-broker-opt options.
func (e *Env) armOpts(arm string) []string {
	var opts []string
	if coldstart.ArmBase(arm) == coldstart.ArmOnC1 {
		opts = append(opts, C1OnlyOpt)
	}
	return append(opts, e.cfg.ArmBrokerJVMOpts[arm]...)
}

// armOptsAll is armOpts of every arm that has some, as the study records them.
func (e *Env) armOptsAll() map[string][]string {
	out := map[string][]string{}
	for _, a := range e.cfg.Arms {
		if opts := e.armOpts(a); len(opts) > 0 {
			out[a] = opts
		}
	}
	return out
}

// SidecarBin is the warmup-sidecar binary Setup built (the rollout study's sidecar launcher runs it).
func (e *Env) SidecarBin() string { return e.sidecar }

// checkMix runs every query of the mix once: a query the broker rejects would turn the study
// into a measurement of error answers.
func (e *Env) checkMix(ctx context.Context) error {
	for _, q := range e.cfg.Mix {
		r, err := e.Cluster.Query(ctx, q.SQL)
		if err != nil {
			return fmt.Errorf("study: query %s: %w", q.Name, err)
		}
		if len(r.Exceptions) > 0 {
			return fmt.Errorf("study: query %s (%s) fails: error %d: %.300s", q.Name, q.SQL, r.Exceptions[0].ErrorCode, r.Exceptions[0].Message)
		}
		if r.NumServersResponded != r.NumServersQueried || r.NumServersQueried == 0 {
			return fmt.Errorf("study: query %s: %d of %d servers responded", q.Name, r.NumServersResponded, r.NumServersQueried)
		}
	}
	return nil
}

var versionRe = regexp.MustCompile(`^pinot-broker-(.+)\.jar$`)

func pinotVersion(lib string) string {
	ents, _ := os.ReadDir(lib)
	for _, e := range ents {
		if m := versionRe.FindStringSubmatch(e.Name()); m != nil && !strings.Contains(m[1], "tests") {
			return m[1]
		}
	}
	return "unknown"
}

func javaVersion() string {
	out, err := exec.Command("java", "-version").CombinedOutput()
	if err != nil {
		return ""
	}
	line, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	return strings.TrimSpace(line)
}

// sidecarListen is the sidecar's loopback address: the port the cluster keeps beside the broker
// for it, checked free.
func (e *Env) sidecarListen() (string, error) {
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(e.Cluster.Ports().Brokers[0].Sidecar))
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return "", fmt.Errorf("sidecar port %s is taken: %w", addr, err)
	}
	l.Close()
	return addr, nil
}

// Study runs the interleaved study: restart r runs every arm once, in an order rotated by r,
// so drift of the machine over the study hits every arm alike.
func (e *Env) Study(ctx context.Context, rate float64, calib *coldstart.Calibration) (*coldstart.Study, Traces, error) {
	cfg := e.cfg
	m := e.machine
	m.Java = javaVersion()
	s := &coldstart.Study{
		PinotVersion: e.version, RateQPS: rate, Arms: map[string]*coldstart.Arm{}, Mix: cfg.MixName,
		Smoke: cfg.Smoke, ColdWindow: coldstart.Window{Start: 0, End: cfg.Cold},
		WarmWindow: coldstart.Window{Start: cfg.WarmStart, End: cfg.WarmEnd},
		TimeoutMs:  float64(cfg.Timeout.Milliseconds()), Queries: cfg.Mix,
		BrokerJVMOpts: append(slices.Clone(cfg.BrokerJVMOpts), e.agentOpts...), ArmBrokerJVMOpts: e.armOptsAll(), Machine: m, Command: cfg.Command, StartedAt: time.Now(),
	}
	if calib != nil {
		s.Notes = append(s.Notes, calib.Note())
		s.Calibration = calib
	} else {
		s.Notes = append(s.Notes, e.prewarmServers(ctx))
	}
	if cfg.BrokerNice > 0 {
		s.Notes = append(s.Notes, fmt.Sprintf("every restarted broker ran at nice %d: the servers, ZooKeeper, the controller and the load generator got the CPU first", cfg.BrokerNice))
	}
	if note := e.prewarmProbes(ctx); note != "" {
		s.Notes = append(s.Notes, note)
	}
	s.ArmBrokerJava = e.armJDKs(ctx)
	for _, a := range cfg.Arms {
		s.Arms[a] = &coldstart.Arm{Sidecar: e.sidecarEnv(a)}
		if coldstart.IsAOTArm(a) {
			t, err := e.TrainAOT(ctx, a, rate)
			if err != nil {
				return s, Traces{}, fmt.Errorf("study: %w", err)
			}
			s.Arms[a].AOTTraining = t
		}
	}
	traces := Traces{}
	total := cfg.Restarts * len(cfg.Arms)
	n := 0
	for r := range cfg.Restarts {
		for k := range cfg.Arms {
			arm := cfg.Arms[(k+r)%len(cfg.Arms)]
			n++
			q, err := waitQuiet(ctx, MachineCPU, quietEvery, quietLimit)
			if err != nil {
				return s, traces, fmt.Errorf("study: before %s restart %d: %w", arm, r+1, err)
			}
			if n == 1 {
				s.Notes = append(s.Notes, "before the first restart: "+q.String())
			}
			cfg.Logger.Info("cold restart", "n", n, "of", total, "arm", arm, "restart", r+1, "before", q.String())
			res, tr, err := e.Restart(ctx, arm, r+1, rate)
			if err != nil {
				return s, traces, fmt.Errorf("study: %s restart %d: %w", arm, r+1, err)
			}
			s.Arms[arm].Restarts = append(s.Arms[arm].Restarts, res)
			traces[arm] = append(traces[arm], tr)
			if err := saveTrace(filepath.Join(e.work, "raw", fmt.Sprintf("%s-%d.json", arm, r+1)), tr); err != nil {
				return s, traces, err
			}
			cfg.Logger.Info("restart measured", "arm", arm, "restart", r+1,
				"cold_cancel_rate", fmt.Sprintf("%.3f", res.ColdCancelRate), "cold_p99_ms", res.ColdP99Ms,
				"cold_time_used_ms", fmt.Sprintf("%.1f", res.ColdMeanTimeUsedMs), "peak_inflight", res.PeakInflight,
				"warm_cancel_rate", fmt.Sprintf("%.3f", res.WarmCancelRate), "warm_p99_ms", res.WarmP99Ms,
				"warmup_s", fmt.Sprintf("%.2f", res.WarmupSeconds), "cold_errors", res.Cold.Errors)
			if err := settle(ctx, cfg.Settle); err != nil {
				return s, traces, err
			}
		}
	}
	s.FinishedAt = time.Now()
	return s, traces, nil
}

// sidecarEnv is an arm's WARMUP_* environment (nil for OFF). WARMUP_LISTEN_ADDR is added at start.
func (e *Env) sidecarEnv(arm string) map[string]string {
	return armEnv(arm, map[string]string{
		"WARMUP_BROKER_URL":     e.Cluster.BrokerURL(),
		"WARMUP_CONTROLLER_URL": e.Cluster.ControllerURL(),
		"WARMUP_LOG_FORMAT":     "text",
	}, e.Cluster.BrokerCompileTimeURL(), e.cfg.Mix, e.extraEnv(arm))
}

// extraEnv is SidecarEnv with the arm's own ArmEnv over it.
func (e *Env) extraEnv(arm string) map[string]string {
	extra := map[string]string{}
	maps.Copy(extra, e.cfg.SidecarEnv)
	maps.Copy(extra, e.cfg.ArmEnv[arm])
	return extra
}

var errSidecarDied = errors.New("sidecar exited")
