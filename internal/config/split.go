package config

import "strings"

// SplitTables splits WARMUP_TABLES on commas, trims, drops blanks and repeats.
func SplitTables(s string) []string {
	var out []string
	seen := map[string]bool{}
	for _, t := range strings.Split(s, ",") {
		t = strings.TrimSpace(t)
		if t != "" && !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out
}
