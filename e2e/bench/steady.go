package bench

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/e2e/cluster"
	"github.com/warmup-sidecar/warmup-sidecar/e2e/coldstart"
)

// The steady study asks what a broker JVM setting costs long after start, where the cold-start
// study's windows end at 75 s: on the study's 2 shared cores the C2 compiler is still busy then.
// Each run restarts the broker with one mode's JVM options, loads it open loop at a fixed rate
// from its first /health 200 for a few minutes (figures per slice, CPU per thread kind), then
// measures its closed-loop capacity. Modes are interleaved, rotated each round, as the arms are.

// JVMMode is a named set of broker JVM options, added after the chart's.
type JVMMode struct {
	Name string   `json:"name"`
	Opts []string `json:"opts"`
}

// SteadyConfig is one steady study; the cluster, mix and broker options are the Env's.
type SteadyConfig struct {
	Modes  []JVMMode
	Rounds int
	Rate   float64       // open-loop arrivals/s
	Load   time.Duration // open-loop load per run, from the broker's first /health 200
	Slice  time.Duration // figures per slice of the load
	// Capacity: closed-loop client counts and step length, after the load.
	CapacityLevels []int
	CapacityStep   time.Duration
}

// notJVMOpt is the first entry that is no JVM option (a value, or a typo without its dash).
func notJVMOpt(opts []string) (string, bool) {
	for _, o := range opts {
		if !strings.HasPrefix(o, "-") {
			return o, true
		}
	}
	return "", false
}

// Check says what is wrong with c, naming the setting.
func (c SteadyConfig) Check() error {
	names := map[string]bool{}
	for _, m := range c.Modes {
		if m.Name == "" || names[m.Name] {
			return fmt.Errorf("JVM mode %q: want a unique, non-empty name", m.Name)
		}
		names[m.Name] = true
		if o, bad := notJVMOpt(m.Opts); bad {
			return fmt.Errorf("JVM mode %s: option %q: want a JVM option (starting with -)", m.Name, o)
		}
	}
	switch {
	case len(c.Modes) < 1:
		return fmt.Errorf("no JVM mode: want at least one")
	case c.Rounds < 1:
		return fmt.Errorf("rounds %d: want ≥ 1", c.Rounds)
	case c.Rate < 0:
		return fmt.Errorf("rate %g: want ≥ 0 (0: calibrate)", c.Rate)
	case c.Slice <= 0 || c.Load < c.Slice:
		return fmt.Errorf("load %s in slices of %s: want 0 < slice ≤ load", c.Load, c.Slice)
	case c.CapacityStep <= 0:
		return fmt.Errorf("capacity step %s: want > 0", c.CapacityStep)
	}
	return nil
}

// SteadyStudy is what a steady study measured.
type SteadyStudy struct {
	PinotVersion  string                 `json:"pinot_version"`
	Mix           string                 `json:"mix,omitempty"`
	RateQPS       float64                `json:"rate_qps"`
	LoadSeconds   float64                `json:"load_seconds"`
	SliceSeconds  float64                `json:"slice_seconds"`
	TimeoutMs     float64                `json:"timeout_ms"`
	BrokerJVMOpts []string               `json:"broker_jvm_opts"`
	Modes         []JVMMode              `json:"modes"`
	Runs          map[string][]SteadyRun `json:"runs"`
	Machine       coldstart.Machine      `json:"machine"`
	Command       string                 `json:"command"`
	StartedAt     time.Time              `json:"started_at"`
	FinishedAt    time.Time              `json:"finished_at"`
	Notes         []string               `json:"notes,omitempty"`
}

// SteadyRun is one mode's run in one round.
type SteadyRun struct {
	Round          int                      `json:"round"`
	HealthySeconds float64                  `json:"healthy_seconds"` // JVM start → /health 200
	Slices         []SteadySlice            `json:"slices"`
	Capacity       []coldstart.CapacityStep `json:"capacity"`
	// Notes say which counters could not be read (their figures then read 0).
	Notes []string `json:"notes,omitempty"`
}

// SteadySlice is one slice of the open-loop load, by scheduled send time since /health 200.
type SteadySlice struct {
	From  float64               `json:"from_s"`
	To    float64               `json:"to_s"`
	Stats coldstart.WindowStats `json:"stats"`
	// The broker's CPU seconds in the slice: all of it, its compiler threads', its GC threads'.
	BrokerCPUSeconds   float64 `json:"broker_cpu_seconds"`
	CompilerCPUSeconds float64 `json:"compiler_cpu_seconds"`
	GCCPUSeconds       float64 `json:"gc_cpu_seconds"`
	JITCompiles        int64   `json:"jit_compiles"`
}

// Steady runs the steady study: every mode once per round, in an order rotated by the round,
// each from a quiet machine. note (the calibration's or the servers' warm-up) is recorded.
func (e *Env) Steady(ctx context.Context, sc SteadyConfig, note string) (*SteadyStudy, error) {
	if err := sc.Check(); err != nil {
		return nil, fmt.Errorf("steady: %w", err)
	}
	if sc.Rate == 0 {
		return nil, fmt.Errorf("steady: no rate (RunSteady calibrates one)")
	}
	cfg := e.cfg
	m := e.machine
	m.Java = javaVersion()
	s := &SteadyStudy{
		PinotVersion: e.version, Mix: cfg.MixName, RateQPS: sc.Rate, LoadSeconds: sc.Load.Seconds(),
		SliceSeconds: sc.Slice.Seconds(), TimeoutMs: float64(cfg.Timeout.Milliseconds()),
		BrokerJVMOpts: slices.Clone(cfg.BrokerJVMOpts), Modes: sc.Modes, Runs: map[string][]SteadyRun{},
		Machine: m, Command: cfg.Command, StartedAt: time.Now(), Notes: []string{note},
	}
	for r := range sc.Rounds {
		for i := range sc.Modes {
			mode := sc.Modes[(i+r)%len(sc.Modes)]
			q, err := waitQuiet(ctx, MachineCPU, quietEvery, quietLimit)
			if err != nil {
				return s, fmt.Errorf("steady: before mode %s round %d: %w", mode.Name, r+1, err)
			}
			cfg.Logger.Info("steady run", "round", r+1, "of", sc.Rounds, "mode", mode.Name, "opts", strings.Join(mode.Opts, " "), "before", q.String())
			run, err := e.steadyRun(ctx, sc, mode, r+1)
			if err != nil {
				return s, fmt.Errorf("steady: mode %s round %d: %w", mode.Name, r+1, err)
			}
			last := run.Slices[len(run.Slices)-1]
			cfg.Logger.Info("steady run measured", "mode", mode.Name, "round", r+1,
				"last_slice_p99_ms", fmt.Sprintf("%.1f", last.Stats.P99Ms), "last_slice_compiler_cpu_s", fmt.Sprintf("%.2f", last.CompilerCPUSeconds),
				"capacity_qps", fmt.Sprintf("%.1f", coldstart.Capacity(run.Capacity).QPS))
			s.Runs[mode.Name] = append(s.Runs[mode.Name], run)
			if err := settle(ctx, cfg.Settle); err != nil {
				return s, err
			}
		}
	}
	s.FinishedAt = time.Now()
	return s, nil
}

func (e *Env) steadyRun(ctx context.Context, sc SteadyConfig, mode JVMMode, round int) (SteadyRun, error) {
	cfg := e.cfg
	if err := e.Cluster.KillBroker(); err != nil {
		return SteadyRun{}, fmt.Errorf("kill broker: %w", err)
	}
	opts := append(e.brokerOpts("", fmt.Sprintf("steady-%s-%d", mode.Name, round)), mode.Opts...)
	if err := e.Cluster.StartBroker(ctx, cluster.WithBrokerJVMOpts(opts...)); err != nil {
		return SteadyRun{}, fmt.Errorf("start broker: %w", err)
	}
	started := time.Now()
	pid := e.Cluster.BrokerPID()
	if err := e.Cluster.WaitBrokerHealthy(ctx); err != nil {
		return SteadyRun{}, err
	}
	healthy := time.Now()
	run := SteadyRun{Round: round, HealthySeconds: healthy.Sub(started).Seconds()}

	n := int(sc.Load / sc.Slice)
	at := make([]time.Duration, n+1)
	for k := range at {
		at[k] = time.Duration(k) * sc.Slice
	}
	tr, marks, err := e.loadWithSnapshots(ctx, pid, healthy, at, sc.Rate, at[n])
	if err != nil {
		return run, err
	}
	for k := range n {
		from, to := time.Duration(k)*sc.Slice, time.Duration(k+1)*sc.Slice
		sl := SteadySlice{From: from.Seconds(), To: to.Seconds(), Stats: coldstart.Stats(tr, coldstart.Window{Start: from, End: to})}
		d := diff(marks[k], marks[k+1], &run.Notes, fmt.Sprintf("slice %d", k+1))
		sl.BrokerCPUSeconds, sl.CompilerCPUSeconds, sl.GCCPUSeconds = d.BrokerCPUSeconds, d.BrokerCompilerCPUSeconds, d.BrokerGCCPUSeconds
		sl.JITCompiles = d.JITCompiles
		run.Slices = append(run.Slices, sl)
	}
	bc := coldstart.NewBrokerClient(e.Cluster.BrokerURL(), nil)
	for _, c := range sc.CapacityLevels {
		run.Capacity = append(run.Capacity, coldstart.ClosedLoop(ctx, c, sc.CapacityStep, cfg.Timeout, cfg.Mix, bc.Send))
	}
	bc.Close()
	if e.Cluster.BrokerPID() != pid {
		return run, fmt.Errorf("the broker JVM (pid %d) died under load; see %s", pid, e.Cluster.LogPath("broker"))
	}
	return run, ctx.Err()
}

// RunSteady is the whole steady study: start the cluster, calibrate the rate when sc.Rate is
// 0 (else warm the servers with the mix), run it and write <outDir>/<name>.{json,md}.
func RunSteady(ctx context.Context, cfg Config, sc SteadyConfig, outDir, name string) (*SteadyStudy, error) {
	cfg = cfg.withDefaults()
	if err := sc.Check(); err != nil {
		return nil, fmt.Errorf("steady: %w", err)
	}
	env, err := Setup(ctx, cfg)
	if err != nil {
		return nil, err
	}
	defer env.Close()
	var note string
	if sc.Rate == 0 {
		c, err := env.Calibrate(ctx)
		if err != nil {
			return nil, err
		}
		sc.Rate, note = c.Rate, c.Note()
	} else {
		note = env.prewarmServers(ctx)
	}
	s, err := env.Steady(ctx, sc, note)
	if err != nil {
		return s, err
	}
	j, md, err := WriteSteady(outDir, name, s)
	if err != nil {
		return s, err
	}
	cfg.Logger.Info("steady study written", "json", j, "markdown", md)
	return s, nil
}
