package main

import (
	"strings"
	"testing"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/internal/report"
)

// A budget_expired run as a quiet 2-core machine gives it: the floor met, the multi-stage shapes not
// flat, the JIT still compiling.
func budgetExpired() report.Status {
	return report.Status{
		Outcome:         "budget_expired",
		DurationSeconds: 15.0,
		Floor:           300,
		ProbesSucceeded: 412,
		ExitReason:      "budget ran out with 33 of 48 multi-stage successful probes; latency not yet flat on group_by_1 (1 of 3 flat windows), the multi-stage shapes together (0 of 3 flat windows)",
		Engines: map[string]report.EngineStatus{
			report.EngineSingleStage: {ProbesSucceeded: 379, FloorShare: 252, ShareMet: true},
			report.EngineMultiStage:  {ProbesSucceeded: 33, FloorShare: 48},
		},
		Shapes: []report.ShapeStatus{
			{Shape: "agg_metrics", LatestMs: 4.1, BestMs: 4.0, InARow: 3, Converged: true},
			{Shape: "group_by_1", LatestMs: 9.5, BestMs: 7.25, InARow: 1},
			{Shape: "mse_agg_metrics", LatestMs: 31.2, BestMs: 28, Pooled: true},
			{Shape: "mse_join", LatestMs: 55, BestMs: 41.5, Pooled: true},
		},
		JIT: &report.JITStatus{Known: true, CompileRate: 0.912, PeakRate: 1.5},
	}
}

func TestVerdictSaysTheBudgetOpenedTheGateAndWhy(t *testing.T) {
	lines, code := verdict(budgetExpired(), 15*time.Second, true, "ok")
	text := strings.Join(lines, "\n")
	if code != 1 {
		t.Errorf("exit code %d, want 1 (not warm)", code)
	}
	for _, want := range []string{
		"NOT warm: the gate opened because the 15s budget ran out, not on the evidence",
		"why    budget ran out with 33 of 48 multi-stage successful probes",
		"engine multi_stage: 33 of its 48 successful probes",
		"not flat yet: latest window median ms (best), flat windows in a row",
		"group_by_1 9.5 (7.2), 1 flat",
		"the multi-stage shapes, judged together: mse_agg_metrics 31.2 (28.0); mse_join 55.0 (41.5)",
		"JIT compiler keeps compiling",
		"JIT    still compiling: 0.912 s/s, peak 1.500 s/s",
		`make demo ARGS="--once --budget 60s"`,
		"the gate is open (/readyz 200)",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("verdict lacks %q:\n%s", want, text)
		}
	}
	for _, not := range []string{"agg_metrics 4.1", "floor ", "single_stage", "fewer than the floor"} {
		if strings.Contains(text, not) {
			t.Errorf("verdict names %q, which was met:\n%s", not, text)
		}
	}
	if !strings.HasPrefix(lines[0], "VERDICT") {
		t.Errorf("first line %q, want the VERDICT line first", lines[0])
	}
}

func TestVerdictFloorShortAndShapesCapped(t *testing.T) {
	st := report.Status{Outcome: "budget_expired", Floor: 300, ProbesSucceeded: 120, ProbesFailed: 7,
		ExitReason: "budget ran out with 120 of 300 successful probes"}
	for _, name := range []string{"a", "b", "c", "d", "e", "f", "g", "h"} {
		st.Shapes = append(st.Shapes, report.ShapeStatus{Shape: name, LatestMs: 2, BestMs: 1})
	}
	lines, code := verdict(st, 15*time.Second, false, "warming: exit converged")
	text := strings.Join(lines, "\n")
	for _, want := range []string{"floor  120 of 300 successful probes (7 failed)", "f 2.0 (1.0), 0 flat; 2 more",
		"answered 120 probes in the budget, fewer than the floor",
		"the gate is closed (/readyz: warming: exit converged)"} {
		if !strings.Contains(text, want) {
			t.Errorf("verdict lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "g 2.0") || strings.Contains(text, "JIT compiler") || code != 1 {
		t.Errorf("code %d; shapes beyond the cap named:\n%s", code, text)
	}
}

func TestVerdictWarmAndFailed(t *testing.T) {
	warm := report.Status{Outcome: "warm", DurationSeconds: 7.34, ExitReason: "floor of 300 successful probes reached; latency flat on agg_metrics"}
	lines, code := verdict(warm, 15*time.Second, true, "ok")
	if text := strings.Join(lines, "\n"); code != 0 || !strings.Contains(text, "warm on the evidence in 7.3s, before the 15s budget ran out") ||
		!strings.Contains(text, warm.ExitReason) || strings.Contains(text, "NOT") {
		t.Errorf("warm: code %d\n%s", code, text)
	}
	failed := report.Status{Outcome: "failed", LastError: "every custom query was dropped: the broker cannot compile it, or it never succeeds"}
	lines, code = verdict(failed, 15*time.Second, true, "ok")
	if text := strings.Join(lines, "\n"); code != 1 || !strings.Contains(text, "the run failed") || !strings.Contains(text, failed.LastError) {
		t.Errorf("failed: code %d\n%s", code, text)
	}
	if _, code := verdict(report.Status{}, 15*time.Second, false, "waiting_for_broker"); code != 1 {
		t.Errorf("no outcome: code %d, want 1", code)
	}
}
