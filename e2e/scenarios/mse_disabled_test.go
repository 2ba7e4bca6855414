//go:build e2e

package scenarios

import (
	"strings"
	"testing"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/e2e/cluster"
)

// Issue 24 (HIGH 1) on the real broker: started with pinot.multistage.engine.enabled=false, it
// answers every multi-stage query with error 450. The sidecar, fail-closed, with the defaults (schema
// shapes, converged exit, a 15 s budget): no multi-stage probe, a run warm on the single-stage
// evidence, and /status saying why. Before, every run ended budget_expired and the pod never became
// Ready.
func TestBrokerWithoutTheMultiStageEngineBecomesReady(t *testing.T) {
	coldBroker(t, cluster.WithBrokerExtraConf("pinot.multistage.engine.enabled=false"))
	t.Cleanup(func() {
		coldBroker(t, cluster.WithBrokerExtraConf())
		healthyBroker(t)
	})
	p := startSidecar(t, env("WARMUP_FAIL_CLOSED=true", "WARMUP_BUDGET=15s"))
	took := waitReady(t, p, 3*time.Minute)
	st, err := p.Status()
	if err != nil {
		t.Fatal(err)
	}
	if st.Outcome != "warm" || st.DurationSeconds >= 15 {
		t.Fatalf("outcome %q after %.1fs (%s), want warm on the evidence", st.Outcome, st.DurationSeconds, st.ExitReason)
	}
	if st.MultiStage == nil || st.MultiStage.MultiStage || !strings.Contains(st.MultiStage.Found, "not enabled (error 450") {
		t.Errorf("multi_stage %+v, want none: not enabled", st.MultiStage)
	}
	for _, s := range st.Shapes {
		if strings.HasPrefix(s.Shape, "mse_") {
			t.Errorf("multi-stage shape %s probed on a broker without the engine", s.Shape)
		}
	}
	if !strings.Contains(st.Decided, "no multi-stage probes") {
		t.Errorf("decided %q, want the engine's absence named", st.Decided)
	}
	t.Logf("MEASURE broker without the multi-stage engine: Ready %s after start, run %d warm in %.1fs, %d probes; decided: %s",
		took.Round(time.Millisecond), st.Run, st.DurationSeconds, st.ProbesSucceeded, st.Decided)
}
