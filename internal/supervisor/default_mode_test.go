package supervisor

import (
	"strings"
	"testing"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/pkg/prober"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/prober/judge"
)

// The supervisor over the fake's defaults (a 1.5.1 cluster: schemas, samples,
// the multi-stage engine): the run plans schema shapes on both engines, judges
// them by convergence, opens the fail-closed gate on that evidence, and /status
// tells it all.
func TestSupervisorDefaultModeOpensOnSchemaShapes(t *testing.T) {
	// A long budget: a quiet machine opens in seconds, a saturated one takes longer.
	h := newHarness(t, Options{Enabled: true, Budget: time.Minute, FailClosed: true, Rearm: true,
		Settings: prober.Settings{MinIterations: 100, Concurrency: 4, Exit: judge.ExitConverged}})
	h.start(t)
	for start := time.Now(); !h.sup.Gate.IsOpen(); time.Sleep(10 * time.Millisecond) {
		if time.Since(start) > time.Minute {
			t.Fatalf("gate still closed after a minute: %+v\n%s", h.sup.Board.Snapshot(h.sup.Gate), tail(h.logs.String(), 4000))
		}
	}
	st := h.sup.Board.Snapshot(h.sup.Gate)
	if st.Outcome != "warm" || !strings.Contains(st.ExitReason, "latency flat") || h.runs(prober.OutcomeWarm) != 1 {
		t.Fatalf("outcome %q (%s), want warm by convergence on the first run", st.Outcome, st.ExitReason)
	}
	if st.MultiStage == nil || !st.MultiStage.MultiStage || len(st.ShapeFallbacks) != 0 {
		t.Errorf("multi_stage %+v, fallbacks %q: want both engines and no fallback", st.MultiStage, st.ShapeFallbacks)
	}
	names := map[string]bool{}
	for _, s := range st.Shapes {
		names[s.Shape] = true
	}
	for _, want := range []string{"group_by_1", "mse_group_by_1", "mse_window", "mse_join"} {
		if !names[want] {
			t.Errorf("shape %s missing from %v", want, st.Shapes)
		}
	}
	if names[prober.ShapeLimit1] {
		t.Errorf("LIMIT 1 probed on a cluster with schemas: %v", st.Shapes)
	}
	if e := st.Engines["multi_stage"]; !e.ShareMet || e.ProbesSucceeded == 0 {
		t.Errorf("engines %+v: want the multi-stage share met", st.Engines)
	}
}
