package coldstart

import (
	"fmt"
	"math"
	"strings"
	"time"
)

// The cold-start study's targets, for the sidecar's defaults (on_default) on every mix: the cold
// cancellation rate cut by ≥ 99% against OFF (means), cold p99 within 2× the arm's own warm
// p99 (medians), and every warmup inside the sidecar's 15 s default budget (max). Every ON
// arm is judged against them, so the arms can be compared.
const (
	TargetCancelCut   = 0.99
	TargetColdWarmP99 = 2.0
	TargetWarmupMax   = 15.0
)

// Verdict is one arm's standing against the targets (means over its restarts).
type Verdict struct {
	Arm          string
	CancelCut    float64 // 1 - mean cold cancel rate(arm) / mean(off); NaN without an OFF arm or OFF storm
	ColdWarmP99  float64 // median cold p99 / median warm p99
	MaxWarmup    float64
	CutOK, P99OK bool
	WarmupOK     bool
}

// Verdicts compares every ON arm with OFF.
func Verdicts(s *Study) []Verdict {
	off, hasOff := s.Arms[ArmOff]
	var out []Verdict
	for _, name := range s.ArmNames() {
		if name == ArmOff {
			continue
		}
		a := s.Arms[name]
		v := Verdict{Arm: name, CancelCut: math.NaN()}
		if hasOff {
			offRate := AggregateArm(off, Fields[0]).Mean
			if offRate > 0 {
				v.CancelCut = 1 - AggregateArm(a, Fields[0]).Mean/offRate
			}
		}
		cold := AggregateArm(a, fieldByKey("cold_p99_ms")).Median
		warm := AggregateArm(a, fieldByKey("warm_p99_ms")).Median
		if warm > 0 {
			v.ColdWarmP99 = cold / warm
		} else {
			v.ColdWarmP99 = math.NaN()
		}
		v.MaxWarmup = AggregateArm(a, fieldByKey("warmup_seconds")).Max
		v.CutOK = v.CancelCut >= TargetCancelCut
		v.P99OK = v.ColdWarmP99 <= TargetColdWarmP99
		v.WarmupOK = v.MaxWarmup > 0 && v.MaxWarmup < TargetWarmupMax
		out = append(out, v)
	}
	return out
}

func fieldByKey(key string) Field {
	for _, f := range Fields {
		if f.Key == key {
			return f
		}
	}
	panic("coldstart: no field " + key)
}

// Markdown renders the study as the table its study page shows: one row per figure, one column
// per arm, each cell "median / mean / [min – max]" over the arm's restarts; then the broker JVM's
// figures, what makes the figures suspect and the arms against the targets.
func Markdown(s *Study) string {
	return Table(s) + JVMTable(s) + Warnings(s) + TargetsTable(s)
}

// Table is the study's figures, a column per arm, after a line of how they were measured.
func Table(s *Study) string {
	var b strings.Builder
	arms := s.ArmNames()
	kind := "study"
	if s.Smoke {
		kind = "SMOKE run (not a measurement: 1 restart per arm, short windows)"
	}
	if s.Mix != "" {
		kind += ", mix " + s.Mix
	}
	fmt.Fprintf(&b, "Cold-start %s: Pinot %s, %.0f QPS open loop, client timeout %.0f ms, cold window [%s, %s), warm window [%s, %s) after Ready.\n\n",
		kind, s.PinotVersion, s.RateQPS, s.TimeoutMs, secs(s.ColdWindow.Start), secs(s.ColdWindow.End), secs(s.WarmWindow.Start), secs(s.WarmWindow.End))
	for _, a := range arms {
		if opts := s.ArmBrokerJVMOpts[a]; len(opts) > 0 {
			fmt.Fprintf(&b, "Arm %s's brokers ran with `%s` beyond the study's JVM options.\n\n", a, strings.Join(opts, " "))
		}
	}
	b.WriteString("| figure |")
	for _, a := range arms {
		fmt.Fprintf(&b, " %s (n=%d) |", a, len(s.Arms[a].Restarts))
	}
	b.WriteString("\n|---|")
	for range arms {
		b.WriteString("---|")
	}
	b.WriteString("\n")
	for _, f := range Fields {
		label := f.Label
		if f.Unit != "" && f.Unit != "%" {
			label += " (" + f.Unit + ")"
		}
		fmt.Fprintf(&b, "| %s |", label)
		for _, a := range arms {
			if f.Key == "warmup_seconds" && a == ArmOff {
				b.WriteString(" — |")
				continue
			}
			g := AggregateArm(s.Arms[a], f)
			fmt.Fprintf(&b, " **%s** / %s / [%s – %s] |", num(g.Median, f.Unit), num(g.Mean, f.Unit), num(g.Min, f.Unit), num(g.Max, f.Unit))
		}
		b.WriteString("\n")
	}
	b.WriteString("\nCells: **median** / mean / [min – max] over restarts. Cold p50/p99 count a cancelled query as the 2 s timeout; " +
		"mean timeUsedMs is over answered queries only (cancelled ones report none, so a storm understates it).\n")
	return b.String()
}

// JVMTable is the broker JVM's figures per arm: its JDK, its AOT cache, its start and its
// compiler's CPU.
func JVMTable(s *Study) string { return jvmMarkdown(s, s.ArmNames()) }

// Warnings say what makes the study's figures suspect: a calibration that fell back, a load
// generator that fell behind ("" when nothing did).
func Warnings(s *Study) string {
	var b strings.Builder
	if c := s.Calibration; c != nil && c.Fallback {
		fmt.Fprintf(&b, "\n**Warning:** %s.\n", c.Note())
	}
	if lag := MaxLagMs(s); lag > LagWarnMs {
		fmt.Fprintf(&b, "\n**Warning:** the load generator fell up to %.0f ms behind its schedule (limit %d ms): the machine was too busy "+
			"for an open loop at this rate, and these figures measure that as much as the broker.\n", lag, LagWarnMs)
	}
	return b.String()
}

// TargetsTable is every ON arm against the cold-start study's targets ("" for a study without an ON arm).
func TargetsTable(s *Study) string {
	vs := Verdicts(s)
	if len(vs) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("\n| target | " + strings.Join(armHeaders(vs), " | ") + " |\n|---|")
	for range vs {
		b.WriteString("---|")
	}
	fmt.Fprintf(&b, "\n| cold cancellations cut ≥ %s vs off (means) |", pct(TargetCancelCut))
	for _, v := range vs {
		fmt.Fprintf(&b, " %s |", cutCell(v))
	}
	fmt.Fprintf(&b, "\n| cold p99 ≤ %g× warm p99 (medians) |", TargetColdWarmP99)
	for _, v := range vs {
		fmt.Fprintf(&b, " %s |", p99Cell(v))
	}
	fmt.Fprintf(&b, "\n| warmup < %g s (max) |", TargetWarmupMax)
	for _, v := range vs {
		fmt.Fprintf(&b, " %s |", warmupCell(v))
	}
	fmt.Fprintf(&b, "\n\nThe targets are the cold-start study's for %s (the sidecar's defaults); the other ON arms are judged alike for comparison. "+
		"A missed target says by how much.\n", ArmOnDefault)
	return b.String()
}

func armHeaders(vs []Verdict) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = v.Arm
	}
	return out
}

// cutCell is the cancellation cut against its target: a miss says how many points short.
func cutCell(v Verdict) string {
	switch {
	case math.IsNaN(v.CancelCut):
		return "n/a (off had no cold cancellations)"
	case v.CutOK:
		return fmt.Sprintf("%.1f%% %s", 100*v.CancelCut, mark(true))
	}
	return fmt.Sprintf("%.1f%% %s (%.1f points short)", 100*v.CancelCut, mark(false), 100*(TargetCancelCut-v.CancelCut))
}

// p99Cell is cold p99 / warm p99 against its target: a miss says how many times the limit.
func p99Cell(v Verdict) string {
	switch {
	case math.IsNaN(v.ColdWarmP99):
		return "n/a (no warm p99)"
	case v.P99OK:
		return fmt.Sprintf("%.1f× %s", v.ColdWarmP99, mark(true))
	}
	return fmt.Sprintf("%.1f× %s (%.1f times the %g× limit)", v.ColdWarmP99, mark(false), v.ColdWarmP99/TargetColdWarmP99, TargetColdWarmP99)
}

// warmupCell is the longest warmup against the budget: a miss says by how many seconds.
func warmupCell(v Verdict) string {
	switch {
	case v.MaxWarmup <= 0:
		return "n/a (no warmup reported) " + mark(false)
	case v.WarmupOK:
		return fmt.Sprintf("%.1f s %s", v.MaxWarmup, mark(true))
	}
	return fmt.Sprintf("%.1f s %s (%.1f s over)", v.MaxWarmup, mark(false), v.MaxWarmup-TargetWarmupMax)
}

func mark(ok bool) string {
	if ok {
		return "✅"
	}
	return "❌"
}

func pct(x float64) string {
	if math.IsNaN(x) {
		return "n/a"
	}
	return fmt.Sprintf("%.0f%%", 100*x)
}

func num(x float64, unit string) string {
	switch {
	case math.IsNaN(x):
		return "n/a"
	case unit == "%":
		return fmt.Sprintf("%.1f%%", 100*x)
	case unit == "s":
		return fmt.Sprintf("%.1f", x)
	case x >= 100 || x == math.Trunc(x):
		return fmt.Sprintf("%.0f", x)
	default:
		return fmt.Sprintf("%.1f", x)
	}
}

func secs(d time.Duration) string {
	return fmt.Sprintf("%gs", d.Seconds())
}

// LagWarnMs is the generator lag beyond which a study's figures are flagged: the open loop
// was no longer open.
const LagWarnMs = 100

// MaxLagMs is the generator's worst lag behind schedule in any cold or warm window of s.
func MaxLagMs(s *Study) float64 {
	var lag float64
	for _, a := range s.Arms {
		for _, r := range a.Restarts {
			lag = max(lag, r.Cold.MaxLagMs, r.Warm.MaxLagMs)
		}
	}
	return lag
}

// WriteMarkdown writes Markdown(s) to path.
func WriteMarkdown(path string, s *Study) error { return writeFile(path, []byte(Markdown(s))) }

// Method is how the study ran: the command it recorded, when, the machine and the arrival rate.
func Method(s *Study) string { return methodLines(s, "") }

// methodLines are the command (the one given, running the study's own; or the study's), when,
// the machine and the arrival rate, a paragraph each.
func methodLines(s *Study, command string) string {
	var b strings.Builder
	switch {
	case command == "" && s.Command == "":
		b.WriteString("Run")
	case command == "":
		fmt.Fprintf(&b, "Command: `%s`", s.Command)
	case s.Command != "":
		fmt.Fprintf(&b, "Command: `%s` (runs `%s`)", command, s.Command)
	default:
		fmt.Fprintf(&b, "Command: `%s`", command)
	}
	fmt.Fprintf(&b, ", %s → %s.\n\n", s.StartedAt.UTC().Format("2006-01-02 15:04 UTC"), s.FinishedAt.UTC().Format("15:04 UTC"))
	fmt.Fprintf(&b, "Machine: %s; load average at the start %s.\n\n", s.Machine, s.Machine.LoadAvg)
	if s.Calibration != nil {
		fmt.Fprintf(&b, "Arrival %s.\n\n", s.Calibration.Note())
	}
	return b.String()
}

// PlotImage is the study's plot as a Markdown image, path as the page that shows it reaches it.
func PlotImage(path string) string {
	return fmt.Sprintf("![latency and in-flight queries after Ready, median restart of each arm](%s)\n", path)
}
