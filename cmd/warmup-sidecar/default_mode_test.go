package main

import (
	"strings"
	"testing"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/internal/fakepinot"
)

// The default mode end to end, on a cluster as operators run it: schema shapes
// from each leg's schema and sample, both engines where the broker serves the
// multi-stage one, and the converged exit; fail-closed, so the pod is Ready only
// on the run's evidence. A broker older than the multi-stage engine gets the
// single-stage shapes only.
func TestServeDefaultModeWarmsOnSchemaShapes(t *testing.T) {
	for _, tc := range []struct {
		name       string
		mode       fakepinot.MultiStage
		multiStage bool
	}{
		{"multi-stage engine served", fakepinot.MultiStageServed, true},
		{"no multi-stage engine (old broker)", fakepinot.MultiStageAbsent, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := fakepinot.NewBroker(fakepinot.ThreeServers())
			c := fakepinot.NewController(fakepinot.ThreeServerTables()...)
			defer b.Close()
			defer c.Close()
			b.SetMultiStage(tc.mode)
			const budget = 60 * time.Second
			addr, logs := serveUntilReady(t, "WARMUP_BROKER_URL="+b.URL(), "WARMUP_CONTROLLER_URL="+c.URL(),
				"WARMUP_FAIL_CLOSED=true", "WARMUP_BUDGET="+budget.String())
			st := status(t, addr)
			if st.Outcome != "warm" || st.Exit != "converged" || !strings.Contains(st.ExitReason, "latency flat") {
				t.Fatalf("outcome %q exit %q (%s), want warm by convergence", st.Outcome, st.Exit, st.ExitReason)
			}
			if st.DurationSeconds <= 0 || st.DurationSeconds >= budget.Seconds()/2 {
				t.Errorf("run took %.1fs of a %s budget: want the evidence, not the budget, to end it", st.DurationSeconds, budget)
			}
			if len(st.ShapeFallbacks) != 0 {
				t.Errorf("shape_fallbacks %q on a cluster with schemas and rows", st.ShapeFallbacks)
			}
			// The cover of the three servers is events and orders: a sample per leg.
			if n := b.Samples(); n != 3 || strings.Join(st.Tables, ",") != "events,orders" {
				t.Errorf("%d samples over tables %q, want one per leg of events and orders (3)", n, st.Tables)
			}
			var mse, sse int
			for _, s := range st.Shapes {
				if !s.Converged && !s.Pooled {
					t.Errorf("shape %s not converged at a warm exit: %+v", s.Shape, s)
				}
				if strings.HasPrefix(s.Shape, "mse_") {
					mse++
				} else if s.Shape != "limit1" {
					sse++
				}
			}
			if sse < 10 || (mse > 0) != tc.multiStage {
				t.Errorf("%d single-stage and %d multi-stage shapes, want ≥ 10 and multi-stage %v: %+v", sse, mse, tc.multiStage, st.Shapes)
			}
			if st.MultiStage == nil || st.MultiStage.MultiStage != tc.multiStage {
				t.Errorf("multi_stage %+v, want %v", st.MultiStage, tc.multiStage)
			}
			if tc.multiStage {
				if e, ok := st.Engines["multi_stage"]; !ok || !e.ShareMet || e.ProbesSucceeded == 0 {
					t.Errorf("engines %+v: want the multi-stage share met", st.Engines)
				}
			}
			for _, q := range st.Queries {
				if !strings.Contains(q, `"ts" BETWEEN `) {
					t.Errorf("probe without the sample's time bound: %s", q)
				}
			}
			if !strings.Contains(logs.String(), `"outcome":"warm"`) {
				t.Errorf("no warm finish in the logs:\n%s", logs.String())
			}
		})
	}
}
