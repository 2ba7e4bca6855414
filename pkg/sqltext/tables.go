package sqltext

import "strings"

// Tables lists the tables a query names after FROM or JOIN, unquoted, in order of
// first appearance. It is a scan, not a parser: a subquery's parenthesis or a name
// it cannot read is skipped, so the list may be short.
func Tables(sql string) []string {
	toks, _ := tokens(sql) // an unclosed quote ends the list; what came before still counts
	code := toks[:0]
	for _, t := range toks {
		if t.kind != comment {
			code = append(code, t)
		}
	}
	var out []string
	seen := map[string]bool{}
	for i := 0; i+1 < len(code); i++ {
		kw := sql[code[i].start:code[i].end]
		if code[i].kind != word || (!strings.EqualFold(kw, "FROM") && !strings.EqualFold(kw, "JOIN")) {
			continue
		}
		t := tableName(sql, code[i+1])
		if t == "" || seen[t] {
			continue
		}
		seen[t] = true
		out = append(out, t)
	}
	return out
}

// tableName is the name a token gives a table: a word as it stands, a quoted
// identifier without its quotes; "" for anything else.
func tableName(s string, t token) string {
	text := s[t.start:t.end]
	switch {
	case t.kind == word:
		return text
	case t.kind == ident && !t.open && len(text) > 2:
		q := text[:1]
		return strings.ReplaceAll(text[1:len(text)-1], q+q, q)
	}
	return ""
}
