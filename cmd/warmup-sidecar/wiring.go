package main

import (
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/warmup-sidecar/warmup-sidecar/internal/config"
	"github.com/warmup-sidecar/warmup-sidecar/internal/report"
	"github.com/warmup-sidecar/warmup-sidecar/internal/supervisor"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/gatehttp"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/jvmmetrics"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/pinot"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/prober"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/prober/judge"
)

// noScatterProbes is the size of the no-scatter step before the floor probes.
const noScatterProbes = 100

// loadConfig reads the environment; on error it prints one line and the caller
// exits 2.
func loadConfig(stderr io.Writer) (config.Config, *slog.Logger, bool) {
	cfg, warns, err := config.Load()
	if err != nil {
		fmt.Fprintln(stderr, "warmup-sidecar: bad configuration:", err)
		return cfg, nil, false
	}
	log := newLogger(cfg, stderr)
	for _, w := range warns {
		log.Warn(w)
	}
	for _, name := range cfg.ServiceLinks {
		log.Debug("ignoring a Kubernetes service-link variable (a Service's address, not a setting)", "variable", name)
	}
	return cfg, log, true
}

func newLogger(cfg config.Config, w io.Writer) *slog.Logger {
	lvl, _ := config.ParseLevel(cfg.LogLevel)
	opts := &slog.HandlerOptions{Level: lvl}
	if cfg.LogFormat == "text" {
		return slog.New(slog.NewTextHandler(w, opts))
	}
	return slog.New(slog.NewJSONHandler(w, opts))
}

// authHint is how the client's messages about missing or refused credentials tell
// an operator of this binary to supply them.
const authHint = "set WARMUP_AUTH_HEADER_FILE to a file holding the Authorization header value of a principal allowed to read the tables"

// newClient builds the Pinot client; the auth file was checked by config.
func newClient(cfg config.Config) (*pinot.Client, error) {
	var auth pinot.AuthSource
	if cfg.AuthHeaderFile != "" {
		a, err := pinot.NewFileAuth(cfg.AuthHeaderFile)
		if err != nil {
			return nil, err
		}
		auth = a
	}
	return pinot.New(pinot.Options{
		BrokerURL:     cfg.BrokerURL,
		ControllerURL: cfg.ControllerURL,
		Auth:          auth,
		AuthHint:      authHint,
		UserAgent:     "warmup-sidecar/" + version,
	}), nil
}

func settings(cfg config.Config) prober.Settings {
	return prober.Settings{
		MinIterations:   cfg.MinIterations,
		MaxTables:       cfg.MaxTables,
		Concurrency:     cfg.Concurrency,
		ProbeTimeout:    cfg.ProbeTimeout,
		Queries:         cfg.Queries,
		Tables:          cfg.TableList,
		NoScatterProbes: noScatterProbes,
		Exit:            judge.ExitRule(cfg.Exit),
		Converge:        judge.ConvergeRule{Tolerance: cfg.ConvergeTolerance, Windows: cfg.ConvergeWindows},
		Shapes:          prober.ShapeMode(cfg.ProbeShapes),
		MultiStage:      prober.EngineMode(cfg.MultiStage),
		MaxRate:         cfg.MaxProbeRate,
	}
}

// compileSource reads the broker JVM's JIT compile time; nil without a URL.
func compileSource(cfg config.Config) prober.CompileTimeSource {
	if cfg.JVMMetricsURL == "" {
		return nil
	}
	return &jvmmetrics.Scraper{URL: cfg.JVMMetricsURL, Client: &http.Client{}}
}

// sidecar is the serving assembly shared by serve and once.
type sidecar struct {
	reg     *prometheus.Registry
	gate    *gatehttp.Gate
	board   *report.StatusBoard
	health  *gatehttp.BrokerHealth
	metrics *report.Metrics
	sup     *supervisor.Supervisor
	boost   *report.CPUBoostReport
}

func newSidecar(cfg config.Config, log *slog.Logger, client *pinot.Client) (*sidecar, error) {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	gm, err := gatehttp.NewMetrics(reg)
	if err != nil {
		return nil, fmt.Errorf("registering gate metrics: %w", err)
	}
	m, err := report.NewMetrics(reg)
	if err != nil {
		return nil, fmt.Errorf("registering run metrics: %w", err)
	}
	if !cfg.Enabled {
		gm.Warm.Set(1)
	}
	gate := gatehttp.NewGate(gm)
	board := report.NewStatusBoard(cfg.Enabled, cfg.MinIterations, cfg.Budget, time.Now)
	board.Update(func(s *report.Status) { s.Exit, s.MaxProbeRate = cfg.Exit, cfg.MaxProbeRate })
	// A /health slower than 800 ms keeps a 200 up to 30 s old: a broker busy at its CPU limit
	// is still serving; it is the broker's own probe's to take out (docs/design.md#readyz).
	health := &gatehttp.BrokerHealth{Check: supervisor.HealthCheck(client.Health), MaxAge: time.Second, Timeout: 800 * time.Millisecond,
		SlowGrace: 30 * time.Second, Now: time.Now}
	sup := &supervisor.Supervisor{
		Opts: supervisor.Options{
			Enabled: cfg.Enabled, Budget: cfg.Budget, FailClosed: cfg.FailClosed, Rearm: cfg.Rearm,
			Settings: settings(cfg),
		},
		Broker: client, Compile: compileSource(cfg), Gate: gate, Board: board, Health: health, Metrics: m, Log: log,
	}
	if cfg.BrokerAOTLog != "" {
		aot, err := report.NewAOTCacheReport(cfg.BrokerAOTLog, os.ReadFile, board, reg, log)
		if err != nil {
			return nil, err
		}
		sup.AOTCache = aot
	}
	boost, err := report.NewCPUBoostReport(board, reg, log)
	if err != nil {
		return nil, err
	}
	sc := &sidecar{reg: reg, gate: gate, board: board, health: health, metrics: m, sup: sup, boost: boost}
	if !cfg.CPUBoostEnabled {
		sc.boostOff("WARMUP_CPU_BOOST_ENABLED is false")
	}
	return sc, nil
}

func (s *sidecar) handlers() *gatehttp.Handlers {
	return &gatehttp.Handlers{Gate: s.gate, Status: s.board.Document(s.gate), Health: s.health, Gatherer: s.reg}
}

// listen binds the sidecar's HTTP server to addr.
func (s *sidecar) listen(addr string) (*gatehttp.Server, error) {
	return gatehttp.Listen(addr, s.handlers().Mux())
}
