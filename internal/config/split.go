package config

import (
	"fmt"
	"strings"
)

// SplitQueries splits WARMUP_QUERY on ';' outside quotes, so a literal such as
// 'a;b' or a quoted identifier stays whole (SQL doubles a quote to escape it, which
// this handles: the quote closes and reopens). Blank parts are dropped. Parts are
// cut from s byte for byte: every delimiter is ASCII, and text that is not valid
// UTF-8 goes to the broker exactly as the operator wrote it.
func SplitQueries(s string) ([]string, error) {
	var out []string
	var quote byte
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"' || c == '`':
			quote = c
		case c == ';':
			if q := strings.TrimSpace(s[start:i]); q != "" {
				out = append(out, q)
			}
			start = i + 1
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("unterminated quote: expected every %c to be closed", quote)
	}
	if q := strings.TrimSpace(s[start:]); q != "" {
		out = append(out, q)
	}
	return out, nil
}

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
