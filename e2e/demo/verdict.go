package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/internal/report"
)

// shownShapes caps the shapes the verdict names one by one.
const shownShapes = 6

// verdict is what the demo says last: how the gate opened (on the evidence, or because the budget
// ran out) and why, in words a newcomer reads without /status, and the exit code of --once (0
// warm, 1 not). ready and why are /readyz's answer after the run.
func verdict(st report.Status, budget time.Duration, ready bool, why string) ([]string, int) {
	gate := "the gate is open (/readyz 200): in a pod, it would now enter its Service"
	if !ready {
		gate = "the gate is closed (/readyz: " + why + ")"
	}
	switch st.Outcome {
	case "warm":
		return []string{
			fmt.Sprintf("VERDICT  warm on the evidence in %.1fs, before the %s budget ran out", st.DurationSeconds, budget),
			"         " + st.ExitReason,
			"         " + gate,
		}, 0
	case "budget_expired":
		lines := []string{
			fmt.Sprintf("VERDICT  NOT warm: the gate opened because the %s budget ran out, not on the evidence", budget),
			"         (fail-open, as by default: a pod would now enter its Service still warming; WARMUP_FAIL_CLOSED=true keeps it out)",
		}
		lines = append(lines, "  why    "+orDash(st.ExitReason, st.LastError))
		lines = append(lines, missing(st)...)
		lines = append(lines, advice(st)...)
		lines = append(lines, "  "+gate)
		return lines, 1
	case "failed":
		return []string{
			"VERDICT  NOT warm: the run failed before the budget ran out",
			"  why    " + orDash(st.LastError, st.ExitReason),
			"  " + gate,
		}, 1
	}
	return []string{fmt.Sprintf("VERDICT  no outcome (%q): the run did not end; /readyz: %s", st.Outcome, why)}, 1
}

// advice says why a budget_expired run is usual here and what gives the evidence more time.
func advice(st report.Status) []string {
	cause := []string{
		"  what to do: nothing is broken. On a small or busy machine the broker's JIT compiler keeps compiling",
		"         for minutes after a start, so latency is still falling when the budget ends (README, Limits).",
	}
	if int64(st.Floor) > st.ProbesSucceeded {
		cause = []string{
			fmt.Sprintf("  what to do: nothing is broken. The cold broker answered %d probes in the budget, fewer than the floor:", st.ProbesSucceeded),
			"         this machine runs the whole cluster (ZooKeeper, controller, 2 servers, the broker) on its cores; a busy",
			"         or small one gives the broker less CPU (README, Limits).",
		}
	}
	return append(cause, "         More time: make demo ARGS=\"--once --budget 60s\"; no multi-stage probes: ARGS=\"--once --multistage off\"")
}

// missing says what the run lacked at the budget: the floor, an engine's share, the shapes whose
// latency was still falling (latest window against the best one), the JIT compiler.
func missing(st report.Status) []string {
	var out []string
	if int64(st.Floor) > st.ProbesSucceeded {
		out = append(out, fmt.Sprintf("  floor  %d of %d successful probes (%d failed)", st.ProbesSucceeded, st.Floor, st.ProbesFailed))
	}
	for _, name := range []string{report.EngineSingleStage, report.EngineMultiStage} {
		if e, ok := st.Engines[name]; ok && !e.ShareMet {
			out = append(out, fmt.Sprintf("  engine %s: %d of its %d successful probes", name, e.ProbesSucceeded, e.FloorShare))
		}
	}
	var single, pooled []string
	for _, s := range st.Shapes {
		if s.Converged {
			continue
		}
		if s.Pooled {
			pooled = append(pooled, fmt.Sprintf("%s %.1f (%.1f)", s.Shape, s.LatestMs, s.BestMs))
		} else {
			single = append(single, fmt.Sprintf("%s %.1f (%.1f), %d flat", s.Shape, s.LatestMs, s.BestMs, s.InARow))
		}
	}
	if len(single) > 0 || len(pooled) > 0 {
		out = append(out, "  not flat yet: latest window median ms (best), flat windows in a row")
	}
	if len(single) > 0 {
		out = append(out, "         "+capped(single))
	}
	if len(pooled) > 0 {
		out = append(out, "         the multi-stage shapes, judged together: "+capped(pooled))
	}
	if j := st.JIT; j != nil && j.Known && !j.Quiet && !j.Ignored {
		out = append(out, fmt.Sprintf("  JIT    still compiling: %.3f s/s, peak %.3f s/s", j.CompileRate, j.PeakRate))
	}
	return out
}

func capped(items []string) string {
	if len(items) > shownShapes {
		items = append(items[:shownShapes:shownShapes], fmt.Sprintf("%d more", len(items)-shownShapes))
	}
	return strings.Join(items, "; ")
}

func orDash(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return "-"
}
