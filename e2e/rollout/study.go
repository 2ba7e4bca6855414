// Package rollout measures what a client sees through the broker Service during a rolling
// restart of the official Pinot chart's brokers on the Kubernetes test bed (e2e/kube, docs/testbed.md):
// a real control plane, the brokers as pods of the chart (with the study's CPU request and limit,
// or none as the chart ships them, and in the ON arms the warmup sidecar added through the chart's
// own values by warmup-inject values), a rollout as
// the operator makes one (`helm upgrade` of the pod template: the real StatefulSet controller picks
// order and pace), the Service as a real HAProxy fed by the test bed's kube-proxy stand-in. The
// study runs every arm's rollouts interleaved under open-loop load (e2e/coldstart) and writes
// results/rollout/.
package rollout

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/e2e/bench"
	"github.com/warmup-sidecar/warmup-sidecar/e2e/cluster"
	"github.com/warmup-sidecar/warmup-sidecar/e2e/coldstart"
	"github.com/warmup-sidecar/warmup-sidecar/e2e/kube/testbed"
	"github.com/warmup-sidecar/warmup-sidecar/e2e/zkclient"
)

// DefaultBasePort keeps the rollout study's cluster clear of the e2e tests' and the cold-start
// study's; the pods' host ports follow the cluster's (cluster.PortSpan above it).
const DefaultBasePort = 30000

// DefaultFleetWarmup is the command's load before the first event when the rate is given (no
// calibration to warm the fleet).
const DefaultFleetWarmup = 2 * time.Minute

// DefaultSteadyWait bounds the wait for a fleet that serves the load without loss before an
// event: a fleet every pod of which was just rolled needs minutes of load on a 300m broker.
const DefaultSteadyWait = 3 * time.Minute

// The broker container's CPU by default (docs/testbed.md#the-rollout-study-on-the-bed): 3 brokers'
// limits take 0.9 of the machine's 2 cores, leaving the servers, ZooKeeper, the controller, the
// control plane and the load generator (outside the pods, unlimited) the rest, so that the
// brokers' quota, not the machine, bounds the fleet (at 3 × 500m the servers and the machine
// did); requests equal limits, and 4 pods (a scale-out) with their sidecars fit the node. A study
// of the brokers as the official chart ships them sets CPUNone for both (or the limit alone).
const (
	DefaultBrokerCPURequest = "300m"
	DefaultBrokerCPULimit   = "300m"
	// DefaultBoostCPULimit is on_boost's limit while boosted: one of the node's 2 cores.
	DefaultBoostCPULimit = "1"
	// DefaultBoostFixedHold is on_boost_fixed's boost after the gate opened: the study's anchor,
	// "until Ready + 60 s".
	DefaultBoostFixedHold = 60 * time.Second
	// DefaultBoostCompilers is on_boost_compilers' -XX:CICompilerCount: one C1 and three C2
	// threads (HotSpot gives a third to C1), twice the chart's JVM's two.
	DefaultBoostCompilers = 4
	// DefaultGentleConcurrency is on_boost_gentle's probes in flight: one, a quarter of the
	// sidecar's default 4.
	DefaultGentleConcurrency = 1
)

// DefaultProxySync is kube-proxy's default --iptables-min-sync-period.
const DefaultProxySync = time.Second

// Config is one rollout study.
type Config struct {
	Arms     []string // default: StudyArms
	Rollouts int      // per arm (default 3)
	// ScaleOut adds one scale-out per arm, right after the arm's rollout of the last round (the
	// fleet then has the arm's pod template: a scale-out with another would roll every pod).
	ScaleOut bool
	Brokers  int     // the fleet (default 3)
	Rate     float64 // arrivals/s through the balancer; 0: calibrate on the warm fleet
	// FleetWarmup is load at Rate through every broker before the first event when Rate is
	// given (0: none; the command's default is DefaultFleetWarmup): the calibration otherwise
	// warms the fleet, and without either the first event's steady window meets brokers that
	// have never served (a cold baseline). The same load follows every readying of the fleet
	// for an arm's broker CPU (readycpu.go).
	FleetWarmup time.Duration
	// RateFractions of the warm fleet's capacity the calibration tries (nil: coldstart's).
	RateFractions []float64
	// Warm is the least load before the steady window (not measured), Steady the window the
	// rollout's p99 is compared with, Tail the load after the last pod is available.
	Warm, Steady, Tail time.Duration
	// SteadyWait is the most load before the steady window (default DefaultSteadyWait): the
	// steady window begins once the fleet has served the load for SteadyQuiet without a lost
	// query, or at SteadyWait, and then the event is recorded as begun unsettled.
	SteadyWait time.Duration
	Settle     time.Duration // between two events
	// PodBound bounds an event per pod (default DefaultPodBound): a rollout not done within
	// PodBound × the fleet (a scale-out: PodBound) is recorded as unfinished, its load stopped,
	// and the study goes on once the fleet has rolled out with no load (or stops if it does not).
	PodBound time.Duration
	Timeout  time.Duration // client timeout
	Mix      coldstart.Mix
	MixName  string
	// BrokerCPURequest and BrokerCPULimit are the broker container's (chart values
	// broker.resources), CPUNone for a field left unset as the official chart leaves both.
	// Defaults: DefaultBrokerCPU*.
	BrokerCPURequest, BrokerCPULimit string
	// ReadinessDelay and ReadinessPeriod are the broker readiness probe's initialDelaySeconds
	// and periodSeconds (chart values broker.probes.readiness; 0: the chart's 60 s and 10 s).
	ReadinessDelay, ReadinessPeriod time.Duration
	// BoostCPULimit is on_boost's broker CPU limit while boosted (brokerCpuBoost.cpu.limit).
	BoostCPULimit string
	// BoostFixedHold is how long on_boost_fixed keeps the boost after its gate opened
	// (brokerCpuBoost.settle with no JIT signal; default DefaultBoostFixedHold).
	BoostFixedHold time.Duration
	// BoostCompilers is on_boost_compilers' -XX:CICompilerCount (default DefaultBoostCompilers).
	BoostCompilers int
	// GentleConcurrency is on_boost_gentle's warmup.concurrency (default DefaultGentleConcurrency).
	GentleConcurrency int
	// PacedRate is on_fast_paced's warmup.maxProbeRate in probes/s; 0: the study's rate over its
	// brokers (one broker's share of the traffic).
	PacedRate float64
	// JMXAgent loads the Prometheus JMX exporter agent in every arm's broker JVM as Pinot's
	// monitoring guide does (broker.jvmOpts): the ON arms' sidecars get the JIT signal from it
	// (warmup.jvmMetricsUrl; not on_boost_fixed's) and the study records each pod's compile time.
	JMXAgent bool
	// SidecarProbePeriod is the sidecar readiness probe's periodSeconds (warmup-inject's
	// readinessProbe.periodSeconds; 0: the sidecar chart's 5 s).
	SidecarProbePeriod time.Duration
	// ProxySync is the service proxy's minimum sync period (0: DefaultProxySync).
	ProxySync time.Duration
	SlowStart time.Duration // the balancer's slow start in the *_slowstart arms
	// JavaClient runs, beside the balancer's load, a client that picks brokers as Pinot's Java
	// client does (e2e/zkclient) at JavaClientQPS (0: a tenth of the rate, at least 1).
	JavaClient    bool
	JavaClientQPS float64
	// SidecarEnv are sidecar settings as WARMUP_* variables (e.g. WARMUP_BUDGET): each becomes
	// the sidecar chart's warmup value that sets it, in warmup-inject's values.
	SidecarEnv map[string]string
	BasePort   int
	BenchRows  int
	// CalibrationLevels and CalibrationStep: the closed loop through the balancer.
	CalibrationLevels []int
	CalibrationStep   time.Duration
	WorkDir           string
	KeepWorkDir       bool
	Out               string // results dir
	Name              string // results file stem (default latest)
	Smoke             bool
	Notes             []string // recorded in the study (e.g. what else ran on the machine)
	Command           string
	Logger            *slog.Logger
	Progress          io.Writer
}

func (c Config) withDefaults() Config {
	if len(c.Arms) == 0 {
		c.Arms = slices.Clone(StudyArms)
	}
	c.Rollouts = cmp.Or(c.Rollouts, 3)
	c.Brokers = cmp.Or(c.Brokers, 3)
	c.Warm = cmp.Or(c.Warm, 15*time.Second)
	c.Steady = cmp.Or(c.Steady, 30*time.Second)
	c.Tail = cmp.Or(c.Tail, 45*time.Second)
	c.SteadyWait = cmp.Or(c.SteadyWait, DefaultSteadyWait)
	c.Settle = cmp.Or(c.Settle, 5*time.Second)
	c.PodBound = cmp.Or(c.PodBound, DefaultPodBound)
	c.Timeout = cmp.Or(c.Timeout, coldstart.DefaultTimeout)
	if c.Mix == nil {
		c.Mix, c.MixName = coldstart.DefaultMix(cluster.TableBench), coldstart.MixBuiltin
	}
	c.BrokerCPURequest = cmp.Or(c.BrokerCPURequest, DefaultBrokerCPURequest)
	c.BrokerCPULimit = cmp.Or(c.BrokerCPULimit, DefaultBrokerCPULimit)
	c.BoostCPULimit = cmp.Or(c.BoostCPULimit, DefaultBoostCPULimit)
	c.BoostFixedHold = cmp.Or(c.BoostFixedHold, DefaultBoostFixedHold)
	c.BoostCompilers = cmp.Or(c.BoostCompilers, DefaultBoostCompilers)
	c.GentleConcurrency = cmp.Or(c.GentleConcurrency, DefaultGentleConcurrency)
	c.ProxySync = cmp.Or(c.ProxySync, DefaultProxySync)
	c.SlowStart = cmp.Or(c.SlowStart, DefaultSlowStart)
	c.BasePort = cmp.Or(c.BasePort, DefaultBasePort)
	c.Name = cmp.Or(c.Name, "latest")
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	return c
}

func (c Config) check() error {
	for _, a := range c.Arms {
		if _, err := specOf(a); err != nil {
			return err
		}
	}
	switch {
	case c.Rollouts < 1:
		return fmt.Errorf("rollouts %d: want ≥ 1", c.Rollouts)
	case c.Brokers < 2:
		return fmt.Errorf("brokers %d: want ≥ 2", c.Brokers)
	case c.Rate < 0:
		return fmt.Errorf("rate %g: want ≥ 0 (0: calibrate)", c.Rate)
	case c.FleetWarmup < 0:
		return fmt.Errorf("fleet warmup %s: want ≥ 0", c.FleetWarmup)
	case c.PodBound < 0:
		return fmt.Errorf("pod bound %s: want > 0 (0: %s)", c.PodBound, DefaultPodBound)
	case c.Warm < 0 || c.Steady <= 0 || c.Tail < 0:
		return fmt.Errorf("warm %s, steady %s, tail %s: want warm ≥ 0, steady > 0, tail ≥ 0", c.Warm, c.Steady, c.Tail)
	case c.SteadyWait < c.Warm:
		return fmt.Errorf("steady wait %s: want ≥ warm %s (the least load before the steady window)", c.SteadyWait, c.Warm)
	case c.ReadinessDelay < 0 || c.ReadinessPeriod < 0 || c.SidecarProbePeriod < 0:
		return fmt.Errorf("readiness delay %s, period %s, sidecar probe period %s: want ≥ 0 (0: the chart's)", c.ReadinessDelay, c.ReadinessPeriod, c.SidecarProbePeriod)
	case c.BoostFixedHold < 0:
		return fmt.Errorf("boost fixed hold %s: want ≥ 0", c.BoostFixedHold)
	case c.BoostCompilers < 2:
		// HotSpot refuses fewer than 2 with tiered compilation (one C1, one C2 thread).
		return fmt.Errorf("boost compilers %d: want ≥ 2 (-XX:CICompilerCount with tiered compilation)", c.BoostCompilers)
	case c.PacedRate < 0:
		return fmt.Errorf("paced rate %g: want probes per second ≥ 0 (0: the study's rate over its brokers)", c.PacedRate)
	case c.GentleConcurrency < 1 || c.GentleConcurrency > 64:
		// The sidecar clamps WARMUP_CONCURRENCY to [1, 64]: outside it the arm would not run what it says.
		return fmt.Errorf("gentle concurrency %d: want 1–64 (the sidecar's WARMUP_CONCURRENCY range)", c.GentleConcurrency)
	case c.ProxySync < 0:
		return fmt.Errorf("proxy sync %s: want ≥ 0", c.ProxySync)
	case c.Out == "":
		return errors.New("out: want a results directory")
	}
	if _, err := parseBrokerCPU(c.BrokerCPURequest, c.BrokerCPULimit); err != nil {
		return err
	}
	if err := c.checkArmsCPU(); err != nil {
		return err
	}
	if _, err := sidecarValues(c.SidecarEnv); err != nil {
		return err
	}
	return c.checkFits(int64(runtime.NumCPU()) * 1000)
}

// Validate is the check RunStudy makes first, on cfg with its defaults: a command can refuse
// a configuration before it starts anything.
func (c Config) Validate() error { return c.withDefaults().check() }

// checkFits: the scheduler must place every pod the study asks for on the node (the test bed's
// node has the machine's cores): the fleet, plus the scale-out's pod, each asking its arm's
// broker CPU request (none: nothing) and, in an ON arm, the sidecar's; the arm that asks the
// most per pod decides. A pod that does not fit stays Pending and the event never ends.
func (c Config) checkFits(nodeMilli int64) error {
	var most struct {
		arm             string
		broker, sidecar int64
	}
	for _, a := range c.Arms {
		req, lim := c.armCPU(a)
		cpu, err := parseBrokerCPU(req, lim)
		if err != nil {
			return err
		}
		sidecar := int64(0)
		if s, _ := specOf(a); s.sidecar {
			if sidecar, err = sidecarCPURequest(); err != nil {
				return err
			}
		}
		if most.arm == "" || cpu.scheduled()+sidecar > most.broker+most.sidecar {
			most.arm, most.broker, most.sidecar = a, cpu.scheduled(), sidecar
		}
	}
	pods := int64(c.serviceSlots())
	if need := pods * (most.broker + most.sidecar); need > nodeMilli {
		req, lim := c.armCPU(most.arm)
		who := "broker CPU request " + req
		if req == CPUNone {
			who += " (its limit " + lim + " stands for it)"
		}
		if s, _ := specOf(most.arm); s.ownCPU != "" {
			who = most.arm + "'s " + who
		}
		return fmt.Errorf("%s: %d pods × (%dm + the sidecar's %dm) = %dm, more than the node's %dm: the scheduler would leave a pod Pending; lower the request or the brokers",
			who, pods, most.broker, most.sidecar, need, nodeMilli)
	}
	return nil
}

// env is a running study: the cluster, the test bed around it, the results so far.
type env struct {
	cfg   Config
	bench *bench.Env
	bed   *bed
	w     *watcher
	cpu   *cpuMeter
	study *Study
	work  string
	tags  map[string]int // events per arm
}

// RunStudy starts the cluster and the test bed, installs the chart's brokers, calibrates the
// rate through the Service (unless given), then runs each arm's rollouts interleaved (round r
// runs every arm once, its order rotated by r) and, with ScaleOut, one scale-out per arm in the
// last round. The results are rewritten after every event, so an interrupted study leaves what
// it measured.
func RunStudy(ctx context.Context, cfg Config) (_ *Study, err error) {
	cfg = cfg.withDefaults()
	if err := cfg.check(); err != nil {
		return nil, fmt.Errorf("rollout study: %w", err)
	}
	log := cfg.Logger
	benv, err := bench.Setup(ctx, bench.Config{Mix: cfg.Mix, MixName: cfg.MixName, BasePort: cfg.BasePort,
		BenchRows: cfg.BenchRows, Timeout: cfg.Timeout, WorkDir: cfg.WorkDir, KeepWorkDir: cfg.KeepWorkDir,
		CalibrationLevels: cfg.CalibrationLevels, CalibrationStep: cfg.CalibrationStep, RateFractions: cfg.RateFractions,
		Logger: log, Progress: cfg.Progress})
	if err != nil {
		return nil, err
	}
	defer benv.Close()
	e := &env{cfg: cfg, bench: benv, work: benv.WorkDir(), tags: map[string]int{}}
	if e.bed, err = startBed(ctx, cfg, benv.Cluster, benv.SidecarBin(), filepath.Join(e.work, "kube")); err != nil {
		return nil, err
	}
	defer func() {
		if serr := e.bed.stop(); serr != nil {
			log.Error("test bed", "error", serr)
			err = errors.Join(err, serr)
		}
	}()
	e.cpu = &cpuMeter{b: e.bed}
	e.w = newWatcher(e.bed.Bed, log)
	if cfg.JMXAgent {
		e.w.jmxPort = jmxPort
	}
	wctx, stopWatch := context.WithCancel(context.Background())
	watched := make(chan error, 1)
	go func() { watched <- e.w.run(wctx, e.bed.Admin) }()
	defer func() { stopWatch(); <-watched }()
	if err := e.w.waitSynced(ctx); err != nil {
		return nil, err
	}
	log.Info("installing the chart's brokers", "brokers", cfg.Brokers, "cpu_request", cfg.BrokerCPURequest, "cpu_limit", cfg.BrokerCPULimit)
	if err := e.bed.install(ctx); err != nil {
		return nil, err
	}
	platform, err := e.bed.platform(ctx)
	if err != nil {
		return nil, err
	}
	settle, err := chartBoostSettle()
	if err != nil {
		return nil, err
	}
	e.study = &Study{BoostSettle: settle, PinotVersion: benv.PinotVersion(), Brokers: cfg.Brokers, BenchRows: cmp.Or(cfg.BenchRows, 1_000_000), Mix: cfg.MixName, Queries: cfg.Mix,
		TimeoutMs: float64(cfg.Timeout.Milliseconds()), Platform: platform, SlowStartS: cfg.SlowStart.Seconds(),
		WarmS: cfg.Warm.Seconds(), SteadyWaitS: cfg.SteadyWait.Seconds(), SteadyQuietS: SteadyQuiet.Seconds(), SteadyS: cfg.Steady.Seconds(), TailS: cfg.Tail.Seconds(),
		Targets: targetSetFor(cfg).Name, SidecarBudget: cmp.Or(cfg.SidecarEnv["WARMUP_BUDGET"], "15s (default)"), BoostCPULimit: cfg.BoostCPULimit, BoostFixedHoldS: cfg.BoostFixedHold.Seconds(), BoostCompilers: cfg.BoostCompilers, GentleConcurrency: gentleConcurrency(cfg), BrokerJVMOpts: strings.Fields(platform.StatefulSet.BrokerJavaOpts),
		Arms: map[string]*Arm{}, Machine: coldstart.DescribeMachine(), Command: cfg.Command, Smoke: cfg.Smoke, StartedAt: time.Now()}
	e.study.Notes = append(e.study.Notes, cfg.Notes...)
	for _, a := range cfg.Arms {
		e.study.Arms[a] = &Arm{}
	}
	rate := cfg.Rate
	if rate == 0 {
		calib, err := e.calibrate(ctx)
		if err != nil {
			return e.study, err
		}
		e.study.Calibration, rate = calib, calib.Rate
		e.study.Notes = append(e.study.Notes, "rate: "+calib.Note()+", through the Service with every broker in service")
	} else if cfg.FleetWarmup > 0 {
		if err := e.warmFleet(ctx, rate, cfg.FleetWarmup); err != nil {
			return e.study, err
		}
		e.study.Notes = append(e.study.Notes, fmt.Sprintf("rate %g/s given: the fleet was first warmed by %s of that load through the Service with every broker in service (not measured)", rate, cfg.FleetWarmup))
	}
	e.study.RateQPS = rate
	if slices.Contains(cfg.Arms, ArmOnFastPaced) {
		e.bed.pacedRate = pacedRate(cfg, rate)
		e.study.PacedRate = e.bed.pacedRate
	}
	log.Info("rollout study", "arms", cfg.Arms, "rollouts", cfg.Rollouts, "brokers", cfg.Brokers, "rate", rate)
	for r := range cfg.Rollouts {
		for k := range cfg.Arms {
			arm := cfg.Arms[(k+r)%len(cfg.Arms)]
			if err := e.event(ctx, arm, "rollout", rate); err != nil {
				return e.study, err
			}
			if cfg.ScaleOut && r == cfg.Rollouts-1 {
				if err := e.event(ctx, arm, "scale_out", rate); err != nil {
					return e.study, err
				}
			}
		}
	}
	e.study.FinishedAt = time.Now()
	return e.study, e.write()
}

// Outputs are where cfg's results go.
func (c Config) Outputs() Outputs {
	c = c.withDefaults()
	o := Outputs{JSON: filepath.Join(c.Out, c.Name+".json"), Markdown: filepath.Join(c.Out, c.Name+".md")}
	for _, a := range sortArms(c.Arms) {
		o.PNGs = append(o.PNGs, filepath.Join(c.Out, c.Name+"-"+a+".png"))
	}
	return o
}

// calibrate measures the warm fleet's capacity through the Service with every broker in service,
// then runs the closed loop at the concurrency that gave it once more while measuring each
// group's CPU: whether the brokers' CPU limits or the machine bound it.
func (e *env) calibrate(ctx context.Context) (*coldstart.Calibration, error) {
	svc, err := e.bed.startService(ctx, filepath.Join(e.work, "lb", "calibration"), 0, e.bed.replicas)
	if err != nil {
		return nil, err
	}
	bcfg := bench.Config{Mix: e.cfg.Mix, Timeout: e.cfg.Timeout, Logger: e.cfg.Logger,
		CalibrationLevels: e.cfg.CalibrationLevels, CalibrationStep: e.cfg.CalibrationStep, RateFractions: e.cfg.RateFractions}
	calib, err := bench.CalibrateBroker(ctx, bcfg, svc.URL(), nil)
	if err == nil && calib.Capacity.Concurrency > 0 {
		err = e.capacityCPU(ctx, svc, calib.Capacity.Concurrency)
	}
	evs, perr := svc.Stop()
	e.w.addProxy(evs)
	if err != nil {
		return nil, err
	}
	return calib, perr
}

// capacityCPU measures each group's CPU over one more closed-loop step at concurrency n.
func (e *env) capacityCPU(ctx context.Context, svc *testbed.ServiceLB, n int) error {
	step := cmp.Or(e.cfg.CalibrationStep, 6*time.Second)
	bc := coldstart.NewBrokerClient(svc.URL(), nil)
	defer bc.Close()
	extra := map[string][]int{GroupHAProxy: {svc.LB.PID()}}
	a, err := e.cpu.sample(ctx, extra)
	if err != nil {
		return err
	}
	st := coldstart.ClosedLoop(ctx, n, step, e.cfg.Timeout, e.cfg.Mix, bc.Send)
	b, err := e.cpu.sample(ctx, extra)
	if err != nil {
		return err
	}
	w := e.cpu.window(fmt.Sprintf("closed loop, %d clients", n), a, b)
	w.QPS = st.QPS
	e.study.Platform.CapacityCPU = &w
	e.cfg.Logger.Info("CPU at capacity", "qps", st.QPS, "brokers_cores", w.Brokers, "brokers_limit", w.BrokersLimit, "machine_cores", w.Machine)
	return nil
}

// warmFleet sends d of the load at rate through the Service with every broker in service, as
// the calibration would have, so the first event's steady window is measured on warm brokers.
func (e *env) warmFleet(ctx context.Context, rate float64, d time.Duration) error {
	svc, err := e.bed.startService(ctx, filepath.Join(e.work, "lb", "fleet-warmup"), 0, e.bed.replicas)
	if err != nil {
		return err
	}
	e.cfg.Logger.Info("warming the fleet before the first event", "rate", rate, "for", d)
	bc := coldstart.NewBrokerClient(svc.URL(), nil)
	_, err = coldstart.RunLoad(ctx, coldstart.LoadConfig{Rate: rate, Duration: d, Timeout: e.cfg.Timeout}, e.cfg.Mix, bc.Send)
	bc.Close()
	evs, perr := svc.Stop()
	e.w.addProxy(evs)
	if err != nil {
		return fmt.Errorf("warming the fleet: %w", err)
	}
	return perr
}

// event measures one rollout (or scale-out) of arm under the open-loop load through a fresh
// Service balancer, then records and writes it.
func (e *env) event(ctx context.Context, arm, kind string, rate float64) error {
	cfg := e.cfg
	e.tags[arm+kind]++
	n := e.tags[arm+kind]
	tag := fmt.Sprintf("%s-%s-%d", arm, kind, n)
	readied := ""
	if kind == "rollout" { // a scale-out follows the arm's rollout: its fleet has the arm's CPU
		r, err := e.readyCPU(ctx, arm, rate)
		if err != nil {
			return fmt.Errorf("%s: %w", tag, err)
		}
		readied = r
	}
	spec, _ := specOf(arm)
	slow := time.Duration(0)
	if spec.slowStart {
		slow = cfg.SlowStart
	}
	svc, err := e.bed.startService(ctx, filepath.Join(e.work, "lb", tag), slow, e.bed.replicas)
	if err != nil {
		return fmt.Errorf("%s: %w", tag, err)
	}
	open := true
	closeSvc := func() error {
		if !open {
			return nil
		}
		open = false
		evs, err := svc.Stop()
		e.w.addProxy(evs)
		return err
	}
	defer closeSvc()
	if slow > 0 { // every server entered at once: let the ramp end before the steady window
		if err := sleep(ctx, slow); err != nil {
			return err
		}
	}
	loadAvg := loadAverage()
	cfg.Logger.Info("event starts", "arm", arm, "kind", kind, "n", n, "load_average", loadAvg)
	bc := coldstart.NewBrokerClient(svc.URL(), nil)
	defer bc.Close()
	var jc *zkclient.Client
	jqps := 0.0
	if cfg.JavaClient {
		jqps = cfg.JavaClientQPS
		if jqps == 0 {
			jqps = max(1, rate/10)
		}
		if jc, err = e.startJava(ctx, tag, jqps); err != nil {
			return err
		}
	}
	stopJava := func() ([]zkclient.Record, error) {
		if jc == nil {
			return nil, nil
		}
		recs, err := jc.Stop()
		jc = nil
		return recs, err
	}
	defer stopJava()
	until := make(chan struct{})
	type loadResult struct {
		tr  *coldstart.Trace
		err error
	}
	done := make(chan loadResult, 1)
	losses := newLossClock(time.Now)
	go func() {
		tr, err := coldstart.RunLoad(ctx, coldstart.LoadConfig{Rate: rate, Duration: 2 * time.Hour, Timeout: cfg.Timeout, Until: until, Observe: losses.Observe}, cfg.Mix, bc.Send)
		done <- loadResult{tr, err}
	}()
	stopLoad := func() loadResult { close(until); return <-done }
	settled, err := waitSettled(ctx, losses, cfg.Warm, cfg.SteadyWait, time.Second)
	if err != nil {
		stopLoad()
		return fmt.Errorf("%s: %w", tag, err)
	}
	if why := settled.unsettled(); why != "" {
		cfg.Logger.Warn("the event begins on the fleet as it is, recorded as unsettled", "arm", arm, "kind", kind, "n", n, "why", why)
	} else {
		cfg.Logger.Info("the fleet serves the load: steady window", "arm", arm, "kind", kind, "n", n, "load_s", fmt.Sprintf("%.0f", settled.Waited.Seconds()))
	}
	steadyFrom := time.Now()
	steadyCPU, err := e.steadyCPU(ctx, tag, svc, jc)
	if err != nil {
		stopLoad()
		return err
	}
	// The arm's values are readied first (an ON arm's values route): the event is the upgrade.
	var apply func(context.Context) (time.Time, error)
	if kind == "scale_out" {
		apply, err = e.bed.prepareScale(ctx, e.bed.replicas+1)
	} else {
		apply, err = e.bed.prepareRollout(ctx, arm)
	}
	if err != nil {
		stopLoad()
		return err
	}
	began := time.Now()
	finished, err := apply(ctx)
	// An event that does not finish is a result (the fleet fell over under the load), not the
	// tool failing: its figures end at the bound, and the fleet gets a chance to recover below.
	var unfinished *notRolledError
	if errors.As(err, &unfinished) {
		cfg.Logger.Warn("event did not finish within its bound: its load stops there and it is recorded as unfinished",
			"arm", arm, "kind", kind, "n", n, "bound", unfinished.bound, "pods", unfinished.pods)
		finished, err = unfinished.at, nil
	}
	var brokerProbe ProbeJSON
	var sidecarProbe *ProbeJSON
	if err == nil {
		brokerProbe, sidecarProbe, err = e.bed.describe(ctx, e.study.Platform, spec.ownCPU == "")
	}
	tail := cfg.Tail
	if unfinished != nil {
		tail = 0
	}
	if err == nil {
		err = sleep(ctx, tail)
	}
	lr := stopLoad()
	jrecs, jerr := stopJava()
	perr := closeSvc()
	if err != nil {
		return fmt.Errorf("%s: %w", tag, err)
	}
	if jerr != nil {
		return fmt.Errorf("%s: java client: %w", tag, jerr)
	}
	if lr.err != nil {
		return fmt.Errorf("%s: load: %w", tag, lr.err)
	}
	if perr != nil {
		return fmt.Errorf("%s: service proxy: %w", tag, perr)
	}
	t0 := lr.tr.Start
	b := Bounds{
		Steady:  coldstart.Window{Start: steadyFrom.Sub(t0), End: steadyFrom.Sub(t0) + cfg.Steady},
		Rollout: coldstart.Window{Start: began.Sub(t0), End: finished.Add(tail).Sub(t0)},
		Done:    finished.Sub(t0),
	}
	events := e.w.tl.Events()
	res := summarise(arm, n, kind, lr.tr, events, b)
	res.LoadAverage = loadAvg
	res.SteadyStartSeconds, res.Unsettled, res.Readied = b.Steady.Start.Seconds(), settled.unsettled(), readied
	if unfinished != nil {
		res.Unfinished = unfinished.Error()
	}
	steadyCPU.QPS = float64(res.Steady.OK) / cfg.Steady.Seconds()
	e.study.Platform.SteadyCPU = append(e.study.Platform.SteadyCPU, steadyCPU)
	if cfg.JavaClient {
		res.JavaClient = summariseJava(jrecs, events, t0, b, cfg.Timeout, jqps)
	}
	if err := e.saveRaw(tag, lr.tr, events); err != nil {
		return err
	}
	a := e.study.Arms[arm]
	a.BrokerProbe, a.SidecarProbe, a.BrokerCPU = &brokerProbe, sidecarProbe, cfg.ownCPU(arm)
	if kind == "scale_out" {
		a.ScaleOuts = append(a.ScaleOuts, res)
	} else {
		a.Rollouts = append(a.Rollouts, res)
	}
	a.WarmupCost = summariseWarmupCosts(a.Events())
	cfg.Logger.Info("event measured", "arm", arm, "kind", kind, "n", n, "finished", res.Unfinished == "", "failed", res.Failed, "cancelled", res.Cancelled,
		"queries", res.Queries, "steady_p99_ms", res.Steady.P99Ms, "worst_10s_p99_ms", res.Worst10sP99Ms,
		"duration_s", fmt.Sprintf("%.0f", res.DurationSeconds), "steady_brokers_cores", fmt.Sprintf("%.2f", steadyCPU.Brokers),
		"steady_machine_cores", fmt.Sprintf("%.2f", steadyCPU.Machine))
	if err := e.write(); err != nil {
		return err
	}
	if unfinished != nil {
		if err := e.recoverFleet(ctx, res); err != nil {
			return fmt.Errorf("%s: %w", tag, err)
		}
	}
	if kind == "scale_out" { // back to the fleet's size, unmeasured
		if _, err := e.bed.scale(ctx, e.bed.replicas-1); err != nil {
			return fmt.Errorf("%s: scale back in: %w", tag, err)
		}
	}
	return sleep(ctx, cfg.Settle)
}

// recoverFleet waits, with no load, for the fleet an unfinished event left to roll out (every
// pod updated and Ready, within DefaultPodBound per pod), records how long that took in res and
// writes the study again. An error when it does not: the next event would meet a broken fleet.
func (e *env) recoverFleet(ctx context.Context, res *Result) error {
	from := time.Now()
	e.cfg.Logger.Info("waiting for the fleet to recover with no load", "arm", res.Arm, "kind", res.Kind, "n", res.N)
	at, err := e.bed.waitRolled(ctx, e.bed.replicas, DefaultPodBound*time.Duration(e.bed.replicas))
	if err != nil {
		return fmt.Errorf("the fleet did not recover after the unfinished event, with no load: %w", err)
	}
	res.RecoverySeconds = at.Sub(from).Seconds()
	e.cfg.Logger.Info("fleet recovered", "after_s", fmt.Sprintf("%.0f", res.RecoverySeconds))
	return e.write()
}

// steadyCPU measures each group's CPU over the steady window.
func (e *env) steadyCPU(ctx context.Context, tag string, svc *testbed.ServiceLB, jc *zkclient.Client) (CPUWindow, error) {
	extra := map[string][]int{GroupHAProxy: {svc.LB.PID()}}
	if jc != nil {
		extra[GroupJavaClient] = []int{jc.PID()}
	}
	a, err := e.cpu.sample(ctx, extra)
	if err != nil {
		return CPUWindow{}, err
	}
	if err := sleep(ctx, e.cfg.Steady); err != nil {
		return CPUWindow{}, err
	}
	b, err := e.cpu.sample(ctx, extra)
	if err != nil {
		return CPUWindow{}, err
	}
	return e.cpu.window(tag, a, b), nil
}

func sleep(ctx context.Context, d time.Duration) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(d):
		return nil
	}
}

// loadAverage is /proc/loadavg's first three fields ("" where there is none).
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	f := strings.Fields(string(b))
	return strings.Join(f[:min(3, len(f))], " ")
}

// pacedRate is on_fast_paced's cap: the configured one, or one broker's share of the study's rate
// (to 0.1 probes/s).
func pacedRate(c Config, rate float64) float64 {
	if c.PacedRate > 0 {
		return c.PacedRate
	}
	return math.Round(10*rate/float64(max(c.Brokers, 1))) / 10
}

// gentleConcurrency is what the study records of on_boost_gentle's probes in flight: 0 without
// the arm, so a study that did not run it says nothing of it.
func gentleConcurrency(c Config) int {
	if !slices.Contains(c.Arms, ArmOnBoostGentle) {
		return 0
	}
	return c.GentleConcurrency
}
