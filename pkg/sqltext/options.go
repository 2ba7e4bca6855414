package sqltext

import "strings"

// MultiStageOption is the query option that sends a query to Pinot's multi-stage engine.
const MultiStageOption = "useMultistageEngine"

// MultiStage reports whether sql's leading SET statements turn the multi-stage engine on
// (SET useMultistageEngine = true, in any case, the name or value quoted or not). The last
// such SET wins, as in Pinot.
func MultiStage(sql string) bool {
	toks, _ := tokens(sql) // an unclosed quote only ends the scan early
	on := false
	var stmt []string
	for _, t := range toks {
		switch {
		case t.kind == comment:
		case t.kind == punct && sql[t.start] == ';':
			if len(stmt) == 0 || !strings.EqualFold(stmt[0], "SET") {
				return on
			}
			if k, v, ok := strings.Cut(strings.Join(stmt[1:], ""), "="); ok && strings.EqualFold(k, MultiStageOption) {
				on = strings.EqualFold(v, "true")
			}
			stmt = stmt[:0]
		default:
			stmt = append(stmt, strings.Trim(sql[t.start:t.end], "'\"`"))
		}
	}
	return on
}

// WithMultiStage prefixes sql with the SET statement that runs it on the multi-stage engine.
func WithMultiStage(sql string) string {
	return "SET " + MultiStageOption + "=true; " + sql
}
