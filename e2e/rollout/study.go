package rollout

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/e2e/bench"
	"github.com/warmup-sidecar/warmup-sidecar/e2e/cluster"
	"github.com/warmup-sidecar/warmup-sidecar/e2e/coldstart"
	"github.com/warmup-sidecar/warmup-sidecar/e2e/haproxy"
	"github.com/warmup-sidecar/warmup-sidecar/e2e/zkclient"
)

// DefaultBasePort keeps the rollout study's cluster clear of the e2e tests' and the cold-start
// study's.
const DefaultBasePort = 30000

// DefaultFleetWarmup is the command's load before the first event when the rate is given (no
// calibration to warm the fleet).
const DefaultFleetWarmup = 2 * time.Minute

// Config is one rollout study.
type Config struct {
	Arms     []string // default: ArmOrder
	Rollouts int      // per arm (default 3)
	// ScaleOut adds one scale-out per arm after the rollouts: a pod joins the warm fleet.
	ScaleOut bool
	Brokers  int     // the fleet (default 3)
	Rate     float64 // arrivals/s through the balancer; 0: calibrate on the warm fleet
	// FleetWarmup is load at Rate through every broker before the first event when Rate is
	// given (0: none; the command's default is DefaultFleetWarmup): the calibration otherwise
	// warms the fleet, and without either the first event's steady window meets brokers that
	// have never served (a cold baseline).
	FleetWarmup time.Duration
	// RateFractions of the warm fleet's capacity the calibration tries (nil: coldstart's).
	RateFractions []float64
	// Warm is load before the steady window (not measured), Steady the window the rollout's
	// p99 is compared with, Tail the load after the last pod is available.
	Warm, Steady, Tail time.Duration
	Settle             time.Duration // between two events
	Timeout            time.Duration // client timeout
	Mix                coldstart.Mix
	MixName            string
	Model              Model
	SlowStart          time.Duration // the balancer's slow start in the *_slowstart arms
	// JavaClient runs, beside the balancer's load, a client that picks brokers as Pinot's Java
	// client does (e2e/zkclient) at JavaClientQPS (0: a tenth of the rate, at least 1).
	JavaClient    bool
	JavaClientQPS float64
	// SidecarEnv is added to every ON pod's sidecar (e.g. WARMUP_BUDGET).
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
		c.Arms = slices.Clone(ArmOrder)
	}
	c.Rollouts = cmp.Or(c.Rollouts, 3)
	c.Brokers = cmp.Or(c.Brokers, 3)
	c.Warm = cmp.Or(c.Warm, 15*time.Second)
	c.Steady = cmp.Or(c.Steady, 30*time.Second)
	c.Tail = cmp.Or(c.Tail, 45*time.Second)
	c.Settle = cmp.Or(c.Settle, 5*time.Second)
	c.Timeout = cmp.Or(c.Timeout, coldstart.DefaultTimeout)
	if c.Mix == nil {
		c.Mix, c.MixName = coldstart.DefaultMix(cluster.TableBench), coldstart.MixBuiltin
	}
	if c.Model == (Model{}) {
		c.Model = DefaultModel()
	}
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
	case c.Brokers < 2 || c.Brokers >= cluster.MaxBrokers && c.ScaleOut || c.Brokers > cluster.MaxBrokers:
		return fmt.Errorf("brokers %d: want 2–%d (one slot stays free for the scale-out)", c.Brokers, cluster.MaxBrokers-1)
	case c.Rate < 0:
		return fmt.Errorf("rate %g: want ≥ 0 (0: calibrate)", c.Rate)
	case c.FleetWarmup < 0:
		return fmt.Errorf("fleet warmup %s: want ≥ 0", c.FleetWarmup)
	case c.Warm < 0 || c.Steady <= 0 || c.Tail < 0:
		return fmt.Errorf("warm %s, steady %s, tail %s: want warm ≥ 0, steady > 0, tail ≥ 0", c.Warm, c.Steady, c.Tail)
	case c.Out == "":
		return errors.New("out: want a results directory")
	}
	return c.Model.check()
}

// env is a running study: the cluster, the fleet on it, the results so far.
type env struct {
	cfg   Config
	bench *bench.Env
	fleet *Fleet
	study *Study
	work  string
	tags  map[string]int // events per arm
}

// RunStudy starts the fleet, calibrates the rate through the balancer (unless given), then runs
// each arm's rollouts interleaved (round r runs every arm once, its order rotated by r) and,
// with ScaleOut, one scale-out per arm. The results are rewritten after every event, so an
// interrupted study leaves what it measured.
func RunStudy(ctx context.Context, cfg Config) (*Study, error) {
	cfg = cfg.withDefaults()
	if err := cfg.check(); err != nil {
		return nil, fmt.Errorf("rollout study: %w", err)
	}
	log := cfg.Logger
	benv, err := bench.Setup(ctx, bench.Config{Mix: cfg.Mix, MixName: cfg.MixName, BasePort: cfg.BasePort, Brokers: cfg.Brokers,
		BenchRows: cfg.BenchRows, Timeout: cfg.Timeout, WorkDir: cfg.WorkDir, KeepWorkDir: cfg.KeepWorkDir,
		CalibrationLevels: cfg.CalibrationLevels, CalibrationStep: cfg.CalibrationStep, RateFractions: cfg.RateFractions,
		Logger: log, Progress: cfg.Progress})
	if err != nil {
		return nil, err
	}
	defer benv.Close()
	e := &env{cfg: cfg, bench: benv, work: benv.WorkDir(), tags: map[string]int{}}
	if e.fleet, err = NewFleet(benv.Cluster, cfg.Model, filepath.Join(e.work, "logs"), log); err != nil {
		return nil, err
	}
	defer e.fleet.Close()
	e.study = &Study{PinotVersion: benv.PinotVersion(), Brokers: cfg.Brokers, BenchRows: cmp.Or(cfg.BenchRows, 1_000_000), Mix: cfg.MixName, Queries: cfg.Mix,
		TimeoutMs: float64(cfg.Timeout.Milliseconds()), Model: modelJSON(cfg.Model), SlowStartS: cfg.SlowStart.Seconds(),
		WarmS: cfg.Warm.Seconds(), SteadyS: cfg.Steady.Seconds(), TailS: cfg.Tail.Seconds(),
		SidecarBudget: cmp.Or(cfg.SidecarEnv["WARMUP_BUDGET"], "15s (default)"), BrokerJVMOpts: bench.ChartBrokerJVMOpts,
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
		e.study.Notes = append(e.study.Notes, "rate: "+calib.Note()+", through the balancer with every broker in service")
	} else if cfg.FleetWarmup > 0 {
		if err := e.warmFleet(ctx, rate, cfg.FleetWarmup); err != nil {
			return e.study, err
		}
		e.study.Notes = append(e.study.Notes, fmt.Sprintf("rate %g/s given: the fleet was first warmed by %s of that load through the balancer with every broker in service (not measured)", rate, cfg.FleetWarmup))
	}
	e.study.RateQPS = rate
	log.Info("rollout study", "arms", cfg.Arms, "rollouts", cfg.Rollouts, "brokers", cfg.Brokers, "rate", rate)
	for r := range cfg.Rollouts {
		for k := range cfg.Arms {
			arm := cfg.Arms[(k+r)%len(cfg.Arms)]
			if err := e.event(ctx, arm, "rollout", rate); err != nil {
				return e.study, err
			}
		}
	}
	if cfg.ScaleOut {
		for _, arm := range cfg.Arms {
			if err := e.event(ctx, arm, "scale_out", rate); err != nil {
				return e.study, err
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

// calibrate measures the warm fleet's capacity through a balancer with every broker in service.
func (e *env) calibrate(ctx context.Context) (*coldstart.Calibration, error) {
	lb, err := e.balancer(ctx, "calibration", 0)
	if err != nil {
		return nil, err
	}
	defer e.dropBalancer(lb)
	return bench.CalibrateBroker(ctx, bench.Config{Mix: e.cfg.Mix, Timeout: e.cfg.Timeout, Logger: e.cfg.Logger,
		CalibrationLevels: e.cfg.CalibrationLevels, CalibrationStep: e.cfg.CalibrationStep, RateFractions: e.cfg.RateFractions}, lb.URL(), nil)
}

// warmFleet sends d of the load at rate through a balancer with every broker in service, as the
// calibration would have, so the first event's steady window is measured on warm brokers.
func (e *env) warmFleet(ctx context.Context, rate float64, d time.Duration) error {
	lb, err := e.balancer(ctx, "fleet-warmup", 0)
	if err != nil {
		return err
	}
	defer e.dropBalancer(lb)
	e.cfg.Logger.Info("warming the fleet before the first event", "rate", rate, "for", d)
	bc := coldstart.NewBrokerClient(lb.URL(), nil)
	defer bc.Close()
	if _, err := coldstart.RunLoad(ctx, coldstart.LoadConfig{Rate: rate, Duration: d, Timeout: e.cfg.Timeout}, e.cfg.Mix, bc.Send); err != nil {
		return fmt.Errorf("warming the fleet: %w", err)
	}
	return nil
}

// balancer starts a fresh HAProxy (with slowStart on every server, if > 0) and makes it the
// fleet's Service. HAProxy cannot change a server's slowstart at run time, so each event gets
// its own.
func (e *env) balancer(ctx context.Context, tag string, slowStart time.Duration) (*haproxy.LB, error) {
	ports := e.bench.Cluster.Ports()
	lb, err := haproxy.Start(ctx, haproxy.Options{WorkDir: filepath.Join(e.work, "lb", tag),
		Listen:   net.JoinHostPort("127.0.0.1", strconv.Itoa(ports.Balancer)),
		Backends: e.fleet.Backends(), SlowStart: slowStart, ServerTimeout: 60 * time.Second, Logger: e.cfg.Logger})
	if err != nil {
		return nil, err
	}
	if err := e.fleet.UseBalancer(lb); err != nil {
		lb.Stop()
		return nil, err
	}
	return lb, nil
}

func (e *env) dropBalancer(lb *haproxy.LB) {
	_ = e.fleet.UseBalancer(nil)
	lb.Stop()
}

// template is the pod template of arm for event tag.
func (e *env) template(arm, tag string) Template {
	spec, _ := specOf(arm)
	return Template{
		BrokerJVMOpts: func(pod int) []string {
			return append(e.bench.BrokerJVMOpts("", fmt.Sprintf("%s-pod%d", tag, pod)), spec.brokerJVM...)
		},
		Sidecar: spec.sidecar, SidecarBin: e.bench.SidecarBin(), SidecarEnv: e.cfg.SidecarEnv,
	}
}

// event measures one rollout (or scale-out) of arm under the open-loop load through a fresh
// balancer, then records and writes it.
func (e *env) event(ctx context.Context, arm, kind string, rate float64) error {
	cfg := e.cfg
	e.tags[arm+kind]++
	n := e.tags[arm+kind]
	tag := fmt.Sprintf("%s-%s-%d", arm, kind, n)
	spec, _ := specOf(arm)
	slow := time.Duration(0)
	if spec.slowStart {
		slow = cfg.SlowStart
	}
	lb, err := e.balancer(ctx, tag, slow)
	if err != nil {
		return err
	}
	defer e.dropBalancer(lb)
	if slow > 0 { // every server entered at once: let the ramp end before the steady window
		if err := sleep(ctx, slow); err != nil {
			return err
		}
	}
	loadAvg := loadAverage()
	cfg.Logger.Info("event starts", "arm", arm, "kind", kind, "n", n, "load_average", loadAvg)
	bc := coldstart.NewBrokerClient(lb.URL(), nil)
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
	go func() {
		tr, err := coldstart.RunLoad(ctx, coldstart.LoadConfig{Rate: rate, Duration: 2 * time.Hour, Timeout: cfg.Timeout, Until: until}, cfg.Mix, bc.Send)
		done <- loadResult{tr, err}
	}()
	stopLoad := func() loadResult { close(until); return <-done }
	if err := sleep(ctx, cfg.Warm+cfg.Steady); err != nil {
		stopLoad()
		return err
	}
	began := time.Now()
	var added = -1
	if kind == "scale_out" {
		added, err = e.fleet.ScaleOut(ctx, e.template(arm, tag), tag)
	} else {
		err = e.fleet.Rollout(ctx, e.template(arm, tag), tag)
	}
	finished := time.Now()
	if err == nil {
		err = sleep(ctx, cfg.Tail)
	}
	lr := stopLoad()
	jrecs, jerr := stopJava()
	if err != nil {
		return fmt.Errorf("%s: %w", tag, err)
	}
	if jerr != nil {
		return fmt.Errorf("%s: java client: %w", tag, jerr)
	}
	if lr.err != nil {
		return fmt.Errorf("%s: load: %w", tag, lr.err)
	}
	t0 := lr.tr.Start
	b := Bounds{
		Steady:  coldstart.Window{Start: cfg.Warm, End: cfg.Warm + cfg.Steady},
		Rollout: coldstart.Window{Start: began.Sub(t0), End: finished.Add(cfg.Tail).Sub(t0)},
		Done:    finished.Sub(t0),
	}
	events := e.fleet.Timeline().Events()
	res := summarise(arm, n, kind, lr.tr, events, b)
	res.LoadAverage = loadAvg
	if cfg.JavaClient {
		res.JavaClient = summariseJava(jrecs, events, t0, b, cfg.Timeout, jqps)
	}
	if err := e.saveRaw(tag, lr.tr, events); err != nil {
		return err
	}
	a := e.study.Arms[arm]
	if kind == "scale_out" {
		a.ScaleOuts = append(a.ScaleOuts, res)
	} else {
		a.Rollouts = append(a.Rollouts, res)
	}
	cfg.Logger.Info("event measured", "arm", arm, "kind", kind, "n", n, "failed", res.Failed, "cancelled", res.Cancelled,
		"queries", res.Queries, "steady_p99_ms", res.Steady.P99Ms, "worst_10s_p99_ms", res.Worst10sP99Ms,
		"duration_s", fmt.Sprintf("%.0f", res.DurationSeconds))
	if err := e.write(); err != nil {
		return err
	}
	if added >= 0 { // back to the fleet's size, unmeasured
		if err := e.fleet.ScaleIn(ctx, added); err != nil {
			return err
		}
	}
	return sleep(ctx, cfg.Settle)
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
