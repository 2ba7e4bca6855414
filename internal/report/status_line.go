package report

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/warmup-sidecar/warmup-sidecar/pkg/sqltext"
)

// decided says in one line what the sidecar decided and why: the last run's
// outcome and its reason (or that it is still warming), the multi-stage engine
// left out and why, the queries dropped and the legs kept on LIMIT 1. An
// operator reads it instead of piecing the document together.
func (s *Status) decided() string {
	var parts []string
	switch {
	case !s.Enabled:
		return "warmup disabled: the gate follows the broker's /health"
	case s.Outcome != "" && s.ExitReason != "":
		parts = append(parts, s.Outcome+": "+s.ExitReason)
	case s.Outcome != "" && s.LastError != "":
		parts = append(parts, s.Outcome+": "+s.LastError)
	case s.Outcome != "":
		parts = append(parts, s.Outcome)
	case s.Run > 0:
		parts = append(parts, "warming")
	default:
		parts = append(parts, "waiting for the broker")
	}
	if e := s.MultiStage; e != nil && !e.MultiStage && e.Found != "" && !slices.ContainsFunc(s.Queries, sqltext.MultiStage) {
		// (custom queries that turn the engine on probe it whatever was found)
		parts = append(parts, "no multi-stage probes: "+e.Found)
	}
	if n := len(s.DroppedQueries); n > 0 {
		d := s.DroppedQueries[0]
		what := d.Shape
		if what == "" {
			what = d.SQL
		}
		more := ""
		if n > 1 {
			more = fmt.Sprintf(" and %d more", n-1)
		}
		parts = append(parts, fmt.Sprintf("%d %s dropped (%s: %s%s)", n, plural(n, "query", "queries"), what, d.Reason, more))
	}
	if n := len(s.ShapeFallbacks); n > 0 {
		legs := slices.Sorted(maps.Keys(s.ShapeFallbacks))
		parts = append(parts, fmt.Sprintf("%d table %s probed with LIMIT 1 (%s: %s)", n, plural(n, "leg", "legs"), legs[0], s.ShapeFallbacks[legs[0]]))
	}
	return strings.Join(parts, "; ")
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
