package coldstart

import (
	"cmp"
	"fmt"
	"math"
	"strings"
)

// jvmFields are the broker JVM's own figures per restart: how long it took to serve and to be
// Ready, and how much CPU its JIT compiler threads took in the cold window (NaN where the
// restart has no per-thread reading).
var jvmFields = []Field{
	{"healthy_seconds", "broker start → /health 200", "s", func(r Restart) float64 { return r.HealthySeconds }},
	{"ready_seconds", "broker start → Ready", "s", func(r Restart) float64 { return r.ReadySeconds }},
	{"cold_compiler_cpu_seconds", "cold-window compiler CPU", "s", func(r Restart) float64 {
		if r.Diagnostics == nil {
			return math.NaN()
		}
		return r.Diagnostics.Cold.BrokerCompilerCPUSeconds
	}},
}

// jvmMarkdown is the study's broker JVM table: each arm's JDK, its AOT cache (trained how,
// used in how many restarts, with the JVM's own log line), and the jvmFields.
func jvmMarkdown(s *Study, arms []string) string {
	var b strings.Builder
	b.WriteString("\n| broker JVM |")
	for _, a := range arms {
		fmt.Fprintf(&b, " %s |", a)
	}
	b.WriteString("\n|---|" + strings.Repeat("---|", len(arms)) + "\n| JDK |")
	for _, a := range arms {
		j, own := s.ArmBrokerJava[a]
		if !own {
			j = JDK{Version: cmp.Or(s.Machine.Java, "the machine's java")}
		}
		fmt.Fprintf(&b, " %s |", cmp.Or(j.Version, j.Java))
	}
	b.WriteString("\n| AOT cache |")
	for _, a := range arms {
		fmt.Fprintf(&b, " %s |", aotCell(s.Arms[a]))
	}
	for _, f := range jvmFields {
		fmt.Fprintf(&b, "\n| %s (%s) |", f.Label, f.Unit)
		for _, a := range arms {
			var vals []float64
			for _, r := range s.Arms[a].Restarts {
				if v := f.Get(r); !math.IsNaN(v) {
					vals = append(vals, v)
				}
			}
			g := Aggregate(vals)
			fmt.Fprintf(&b, " **%s** / [%s – %s] |", num(g.Median, f.Unit), num(g.Min, f.Unit), num(g.Max, f.Unit))
		}
	}
	b.WriteString("\n\nJVM cells: **median** / [min – max] over restarts; compiler CPU is the broker's C1/C2 threads in the cold window. " +
		"AOT cache: in how many restarts the broker JVM's own log (-Xlog:aot) said it used the cache; a rejected cache or a log that " +
		"never mentions it does not count as used.\n")
	for _, a := range arms {
		arm := s.Arms[a]
		if t := arm.AOTTraining; t != nil {
			fmt.Fprintf(&b, "\nArm %s's AOT cache `%s` (%.1f MB): trained by %s on %s in %.0f s (JVM exit after SIGTERM %.0f s).\n",
				a, t.Cache, float64(t.CacheBytes)/1e6, t.Workload, cmp.Or(t.JDK.Version, t.JDK.Java), t.Seconds, t.ExitSeconds)
		}
		for i, r := range arm.Restarts {
			if u := r.AOTCache; u != nil && len(u.Evidence) > 0 {
				fmt.Fprintf(&b, "\nArm %s restart %d, AOT cache %s: `%s`\n", a, i+1, u.State, u.Evidence[0])
				break
			}
		}
	}
	return b.String()
}

// aotCell says how many of an arm's restarts used their AOT cache; "—" for an arm without one.
func aotCell(a *Arm) string {
	n := map[string]int{}
	total := 0
	for _, r := range a.Restarts {
		if r.AOTCache != nil {
			n[r.AOTCache.State]++
			total++
		}
	}
	if total == 0 && a.AOTTraining == nil {
		return "—"
	}
	cell := fmt.Sprintf("used in %d of %d", n[AOTUsed], len(a.Restarts))
	if n[AOTRejected] > 0 {
		cell += fmt.Sprintf(", **rejected in %d**", n[AOTRejected])
	}
	if n[AOTAbsent] > 0 {
		cell += fmt.Sprintf(", **cache absent in %d**", n[AOTAbsent])
	}
	if n[AOTNoEvidence] > 0 {
		cell += fmt.Sprintf(", **no evidence in %d**", n[AOTNoEvidence])
	}
	return cell
}
