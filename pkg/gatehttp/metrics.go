package gatehttp

import (
	"github.com/prometheus/client_golang/prometheus"
)

// Metrics are the gate's collectors (names in docs/design.md), on an injected
// registry; the sidecar's run figures have collectors of their own.
type Metrics struct {
	// Warm is pinot_warmup_broker_warm; the Gate sets it.
	Warm  prometheus.Gauge
	phase *prometheus.GaugeVec
}

// NewMetrics creates and registers the gate's collectors on reg.
func NewMetrics(reg prometheus.Registerer) (*Metrics, error) {
	m := &Metrics{
		Warm: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "pinot_warmup_broker_warm",
			Help: "1 while the warmup gate is open (after a warm run, or after the budget, fail-open); 0 while waiting for the broker, warming or stopping. With warmup disabled the gate follows the broker's /health: 1 from its first 200 until it is judged gone.",
		}),
		phase: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "pinot_warmup_phase",
			Help: "1 on the current phase of the sidecar, 0 on the others.",
		}, []string{"phase"}),
	}
	for _, c := range []prometheus.Collector{m.Warm, m.phase} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	// Zero series up front so dashboards have data from the first scrape.
	for _, p := range Phases {
		m.phase.WithLabelValues(string(p))
	}
	return m, nil
}

func (m *Metrics) setPhase(p Phase) {
	for _, q := range Phases {
		v := 0.0
		if q == p {
			v = 1
		}
		m.phase.WithLabelValues(string(q)).Set(v)
	}
}
