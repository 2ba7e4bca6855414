package bench

import (
	"cmp"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/warmup-sidecar/warmup-sidecar/e2e/coldstart"
)

// WriteSteady writes <dir>/<name>.json and <name>.md.
func WriteSteady(dir, name string, s *SteadyStudy) (jsonPath, mdPath string, err error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", "", fmt.Errorf("steady results: %w", err)
	}
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return "", "", fmt.Errorf("steady results: %w", err)
	}
	jsonPath, mdPath = filepath.Join(dir, name+".json"), filepath.Join(dir, name+".md")
	if err := os.WriteFile(jsonPath, append(b, '\n'), 0o644); err != nil {
		return "", "", fmt.Errorf("steady results: %w", err)
	}
	if err := os.WriteFile(mdPath, []byte(SteadyMarkdown(s)), 0o644); err != nil {
		return "", "", fmt.Errorf("steady results: %w", err)
	}
	return jsonPath, mdPath, nil
}

// ReadSteady reads a steady study's JSON.
func ReadSteady(path string) (*SteadyStudy, error) {
	return coldstart.ReadJSON[SteadyStudy](path, "steady study")
}

// SteadyMarkdown renders one table per figure: a row per slice of the load (then the
// closed-loop capacity), a column per mode, each cell "median [min – max]" over rounds.
func SteadyMarkdown(s *SteadyStudy) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Steady study, mix %s: Pinot %s, %.0f QPS open loop for %.0f s from each broker's first /health 200, "+
		"then closed-loop capacity; client timeout %.0f ms. Broker JVM: %s, plus per mode:\n\n",
		cmp.Or(s.Mix, "from a file"), s.PinotVersion, s.RateQPS, s.LoadSeconds, s.TimeoutMs, strings.Join(s.BrokerJVMOpts, " "))
	for _, m := range s.Modes {
		fmt.Fprintf(&b, "- `%s`: %s (%d runs)\n", m.Name, cmp.Or(strings.Join(m.Opts, " "), "nothing more"), len(s.Runs[m.Name]))
	}
	b.WriteString("\nCells: **median** [min – max] over the runs. A cancelled query counts as the timeout in p50/p99.\n")
	figures := []struct {
		title string
		get   func(SteadySlice) float64
		unit  string
	}{
		{"p99 (ms)", func(x SteadySlice) float64 { return x.Stats.P99Ms }, "ms"},
		{"p50 (ms)", func(x SteadySlice) float64 { return x.Stats.P50Ms }, "ms"},
		{"cancelled", func(x SteadySlice) float64 { return x.Stats.CancelRate }, "%"},
		{"broker CPU per query (ms)", func(x SteadySlice) float64 { return perQuery(x.BrokerCPUSeconds, x.Stats.Queries) }, "ms"},
		{"of which JIT compiler threads (ms per query)", func(x SteadySlice) float64 { return perQuery(x.CompilerCPUSeconds, x.Stats.Queries) }, "ms"},
		{"JIT compilations", func(x SteadySlice) float64 { return float64(x.JITCompiles) }, ""},
	}
	slices := longestSlices(s)
	for _, f := range figures {
		fmt.Fprintf(&b, "\n%s, by slice of the load (seconds since /health 200):\n\n| slice |", f.title)
		for _, m := range s.Modes {
			fmt.Fprintf(&b, " %s |", m.Name)
		}
		b.WriteString("\n|---|" + strings.Repeat("---|", len(s.Modes)) + "\n")
		for k, sl := range slices {
			fmt.Fprintf(&b, "| %.0f–%.0f s |", sl.From, sl.To)
			for _, m := range s.Modes {
				var xs []float64
				for _, r := range s.Runs[m.Name] {
					if k < len(r.Slices) {
						xs = append(xs, f.get(r.Slices[k]))
					}
				}
				b.WriteString(" " + spread(xs, f.unit) + " |")
			}
			b.WriteString("\n")
		}
	}
	b.WriteString("\nClosed-loop capacity after the load (queries/s, and p99 ms), by clients:\n\n| clients |")
	for _, m := range s.Modes {
		fmt.Fprintf(&b, " %s QPS | %s p99 |", m.Name, m.Name)
	}
	b.WriteString("\n|---|" + strings.Repeat("---|---|", len(s.Modes)) + "\n")
	for k, level := range capacityLevels(s) {
		fmt.Fprintf(&b, "| %d |", level)
		for _, m := range s.Modes {
			var qps, p99 []float64
			for _, r := range s.Runs[m.Name] {
				if k < len(r.Capacity) {
					qps, p99 = append(qps, r.Capacity[k].QPS), append(p99, r.Capacity[k].P99Ms)
				}
			}
			fmt.Fprintf(&b, " %s | %s |", spread(qps, ""), spread(p99, "ms"))
		}
		b.WriteString("\n")
	}
	return b.String()
}

func perQuery(cpuSeconds float64, queries int) float64 {
	if queries == 0 {
		return 0
	}
	return 1000 * cpuSeconds / float64(queries)
}

// spread is "**median** [min – max]"; "n/a" without values.
func spread(xs []float64, unit string) string {
	if len(xs) == 0 {
		return "n/a"
	}
	g := coldstart.Aggregate(xs)
	f := func(x float64) string {
		switch {
		case unit == "%":
			return fmt.Sprintf("%.1f%%", 100*x)
		case x >= 100:
			return fmt.Sprintf("%.0f", x)
		default:
			return fmt.Sprintf("%.1f", x)
		}
	}
	return fmt.Sprintf("**%s** [%s – %s]", f(g.Median), f(g.Min), f(g.Max))
}

// longestSlices are the slices of the run with the most of them (every run has the same
// slices unless one was cut short).
func longestSlices(s *SteadyStudy) []SteadySlice {
	var out []SteadySlice
	for _, runs := range s.Runs {
		for _, r := range runs {
			if len(r.Slices) > len(out) {
				out = r.Slices
			}
		}
	}
	return out
}

func capacityLevels(s *SteadyStudy) []int {
	var out []int
	for _, runs := range s.Runs {
		for _, r := range runs {
			if len(r.Capacity) > len(out) {
				out = out[:0]
				for _, c := range r.Capacity {
					out = append(out, c.Concurrency)
				}
			}
		}
	}
	return out
}
