package supervisor

import (
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/warmup-sidecar/warmup-sidecar/internal/fakepinot"
	"github.com/warmup-sidecar/warmup-sidecar/internal/report"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/prober"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/prober/judge"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/sqltext"
)

// A broker without the multi-stage engine that answers the detection probe only
// after the single-stage shapes converged: the plan is told again without the
// multi-stage queries, and the shapes still planned keep their convergence in
// /status and pinot_warmup_shape_converged (they read 0 although the run ended
// warm by the converged exit).
func TestShapesKeepTheirStateWhenTheEngineIsFoundAbsent(t *testing.T) {
	h := newHarness(t, Options{Enabled: true, Budget: time.Minute, Rearm: true,
		Settings: prober.Settings{MinIterations: 30, Exit: judge.ExitConverged, ProbeTimeout: 10 * time.Second}})
	reg := prometheus.NewRegistry()
	m, err := report.NewMetrics(reg)
	if err != nil {
		t.Fatal(err)
	}
	h.m, h.sup.Metrics = m, m
	h.broker.SetMultiStage(fakepinot.MultiStageAbsent)
	release := make(chan struct{})
	var once sync.Once
	unblock := func() { once.Do(func() { close(release) }) }
	t.Cleanup(unblock) // before the harness's own cleanup closes the broker
	h.broker.SetAnswer(func(sql string) (int, string) {
		if sqltext.MultiStage(sql) {
			<-release // the engine's detection, answered late
		}
		return h.broker.Default(sql)
	})
	h.start(t)
	waitFor(t, 10*time.Second, "the single-stage shapes converged while the engine is unknown", func() bool {
		st := h.sup.Board.Snapshot(h.sup.Gate)
		n := 0
		for _, sh := range st.Shapes {
			switch {
			case sh.Pooled:
			case !sh.Converged:
				return false
			default:
				n++
			}
		}
		return n > 0
	})
	unblock()
	waitFor(t, 10*time.Second, "warm", h.sup.Gate.IsOpen)
	st := h.sup.Board.Snapshot(h.sup.Gate)
	if st.Outcome != string(prober.OutcomeWarm) || st.MultiStage == nil || st.MultiStage.MultiStage {
		t.Fatalf("outcome %q, engine %+v: want warm without the multi-stage engine", st.Outcome, st.MultiStage)
	}
	if len(st.Shapes) == 0 {
		t.Fatal("no shapes in /status")
	}
	for _, sh := range st.Shapes {
		if sh.Pooled {
			t.Errorf("shape %s still in /status though the engine is absent", sh.Shape)
		}
		if !sh.Converged || sh.Probes == 0 {
			t.Errorf("/status shape %+v after a warm converged run: want it converged, its probes kept", sh)
		}
		if v := gauge(t, reg, "pinot_warmup_shape_converged", "shape", sh.Shape); v != 1 {
			t.Errorf("pinot_warmup_shape_converged{shape=%q} = %v, want 1", sh.Shape, v)
		}
	}
	t.Logf("shapes converged: %s", convergedOf(st.Shapes))
}

// gauge is the value of the gauge name{label=value} in reg; -1 when absent.
func gauge(t *testing.T, reg *prometheus.Registry, name, label, value string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == label && l.GetValue() == value {
					return m.GetGauge().GetValue()
				}
			}
		}
	}
	return -1
}
