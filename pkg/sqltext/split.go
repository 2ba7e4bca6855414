package sqltext

import (
	"fmt"
	"strings"
)

// Split cuts s into queries at each ';' outside quotes and comments, so a literal
// such as 'a;b', a quoted identifier or a commented-out ';' stays whole. Blank
// and comment-only parts are dropped, and each query is cut from s byte for byte.
//
// SET statements (SET key = value, any case) stay with the query after them, in
// one text: Pinot reads them as that query's options, and a SET sent alone is a
// compile error. SET statements with no query after them are an error, as is an
// unclosed quote or block comment.
func Split(s string) ([]string, error) {
	toks, err := tokens(s)
	if err != nil {
		return nil, err
	}
	var out []string
	start := 0    // where the current statement begins
	pending := -1 // where the SET statements waiting for a query begin; -1: none
	first := -1   // index of the statement's first code token; -1: blank so far
	end := func(stop int) {
		switch {
		case first < 0: // blank or comments only
		case isSet(s, toks[first]):
			if pending < 0 {
				pending = start
			}
		default:
			from := start
			if pending >= 0 {
				from, pending = pending, -1
			}
			out = append(out, strings.TrimSpace(s[from:stop]))
		}
	}
	for i, t := range toks {
		switch {
		case t.kind == punct && s[t.start] == ';':
			end(t.start)
			start, first = t.end, -1
		case t.kind != comment && first < 0 && strings.TrimSpace(s[t.start:t.end]) != "":
			first = i
		}
	}
	end(len(s))
	if pending >= 0 {
		return nil, fmt.Errorf("%q has no query after it: expected each SET statement to come before the query it applies to", strings.TrimSpace(s[pending:]))
	}
	return out, nil
}

// isSet reports whether t, a statement's first code token, is the keyword SET.
func isSet(s string, t token) bool {
	return t.kind == word && strings.EqualFold(s[t.start:t.end], "SET")
}
