package report

import (
	"github.com/prometheus/client_golang/prometheus"
)

// Metrics are the collectors of the sidecar's runs (names in docs/design.md), on
// an injected registry; the gate's own are gatehttp.Metrics.
type Metrics struct {
	// Duration is pinot_warmup_duration_seconds, the last run's wall time.
	Duration  prometheus.Gauge
	uncovered *prometheus.GaugeVec
	// Probes is pinot_warmup_probes_total{result,engine}, floor probes only.
	Probes *prometheus.CounterVec
	// ProbeDuration is pinot_warmup_probe_duration_seconds{engine}.
	ProbeDuration *prometheus.HistogramVec
	// Runs is pinot_warmup_runs_total{outcome}.
	Runs *prometheus.CounterVec

	// Convergence (recorder_shapes.go): per probe shape, and the JIT compile rate.
	shapeLatency   *prometheus.GaugeVec
	shapeConverged *prometheus.GaugeVec
	compileRate    *prometheus.GaugeVec
}

// NewMetrics creates and registers every run collector on reg.
func NewMetrics(reg prometheus.Registerer) (*Metrics, error) {
	m := &Metrics{
		Duration: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "pinot_warmup_duration_seconds",
			Help: "Wall time of the last warmup run, from its start (the broker turning healthy, for a broker's first run) to its outcome, whether the gate opened or not.",
		}),
		// A vec without labels exports nothing until first set: the gauge is absent
		// when warmup is disabled or coverage is unknown (custom queries).
		uncovered: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "pinot_warmup_uncovered_servers",
			Help: "Servers this broker routes to that the chosen warmup tables miss; set once per run.",
		}, nil),
		Probes: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "pinot_warmup_probes_total",
			Help: "Warmup probes by result (success or failure) and query engine (single_stage or multi_stage).",
		}, []string{"result", "engine"}),
		ProbeDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "pinot_warmup_probe_duration_seconds",
			Help:    "Round-trip time of warmup probes, by query engine.",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
		}, []string{"engine"}),
		Runs: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "pinot_warmup_runs_total",
			Help: "Warmup runs by outcome (warm, budget_expired, failed).",
		}, []string{"outcome"}),
		// Label values are the plan's shape names: a handful, reset every run.
		shapeLatency: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "pinot_warmup_shape_latency_seconds",
			Help: "Median round-trip of the latest window of successful probes of one shape; it flattens as the broker warms.",
		}, []string{"shape"}),
		shapeConverged: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "pinot_warmup_shape_converged",
			Help: "1 once the shape's probe latency has stopped falling (its latest windows are flat), 0 while it converges.",
		}, []string{"shape"}),
		// No labels: absent until the broker JVM's metrics give a rate.
		compileRate: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "pinot_warmup_jvm_compile_rate",
			Help: "Seconds of JIT compilation per second of wall time in the broker JVM, over the last 4 s of readings of its metrics.",
		}, nil),
	}
	for _, c := range []prometheus.Collector{m.Duration, m.uncovered, m.Probes, m.ProbeDuration, m.Runs,
		m.shapeLatency, m.shapeConverged, m.compileRate} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	// Zero series up front so rate() and dashboards have data from the first scrape.
	for _, r := range []string{ResultSuccess, ResultFailure} {
		m.Probes.WithLabelValues(r, EngineSingleStage)
	}
	m.ProbeDuration.WithLabelValues(EngineSingleStage)
	for _, o := range []string{"warm", "budget_expired", "failed"} {
		m.Runs.WithLabelValues(o)
	}
	return m, nil
}

// Probe result label values.
const (
	ResultSuccess = "success"
	ResultFailure = "failure"
)

// SetUncovered sets the uncovered-servers gauge (creating the series).
func (m *Metrics) SetUncovered(n int) { m.uncovered.WithLabelValues().Set(float64(n)) }

// Engine label values: the query engine a probe ran on.
const (
	EngineSingleStage = "single_stage"
	EngineMultiStage  = "multi_stage"
)

// engineLabel is the engine's name in metrics and /status.
func engineLabel(multiStage bool) string {
	if multiStage {
		return EngineMultiStage
	}
	return EngineSingleStage
}
