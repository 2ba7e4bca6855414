package report

import (
	"cmp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/warmup-sidecar/warmup-sidecar/pkg/sqltext"
)

// /status is served on a port anyone who reaches the pod can read, and the
// schema shapes filter on values sampled from the tables' rows. So /status
// shows every query with its literals as ? (sqltext.Mask), and hides them
// where the broker's words quote them too. The logs keep the SQL as sent: they
// sit behind the cluster's access control, and an operator fixing a dropped
// query needs it as it was.

// minQuotedValue and minNumberValue are the shortest literal values hidden
// inside messages: shorter ones (a letter, a small count) tell little and
// would blank innocent words and figures ("error 150", "column 38").
const (
	minQuotedValue = 3 // characters
	minNumberValue = 4
)

// literalMask hides the literals of a set of queries in free text.
type literalMask struct {
	texts   *strings.Replacer // whole queries, quoted literals and their values
	numbers []string          // longest first
}

// newLiteralMask collects the literals of queries.
func newLiteralMask(queries []string) literalMask {
	var pairs []string
	seen := map[string]bool{}
	var numbers []string
	add := func(old, new string) {
		if old != "" && !seen[old] {
			seen[old] = true
			pairs = append(pairs, old, new)
		}
	}
	for _, q := range queries {
		add(q, sqltext.Mask(q))
		for _, lit := range sqltext.Literals(q) {
			if !strings.HasPrefix(lit, "'") {
				if len(lit) >= minNumberValue && !slices.Contains(numbers, lit) {
					numbers = append(numbers, lit)
				}
				continue
			}
			add(lit, sqltext.MaskMark)
			v := strings.ReplaceAll(strings.TrimSuffix(strings.TrimPrefix(lit, "'"), "'"), "''", "'")
			if utf8.RuneCountInString(v) >= minQuotedValue {
				add(v, sqltext.MaskMark)
			}
		}
	}
	// Longest first, so a query is replaced whole before its values are.
	type pair struct{ old, new string }
	ps := make([]pair, 0, len(pairs)/2)
	for i := 0; i < len(pairs); i += 2 {
		ps = append(ps, pair{pairs[i], pairs[i+1]})
	}
	slices.SortStableFunc(ps, func(a, b pair) int { return cmp.Compare(len(b.old), len(a.old)) })
	flat := make([]string, 0, len(pairs))
	for _, p := range ps {
		flat = append(flat, p.old, p.new)
	}
	slices.SortStableFunc(numbers, func(a, b string) int { return cmp.Compare(len(b), len(a)) })
	return literalMask{texts: strings.NewReplacer(flat...), numbers: numbers}
}

// text hides the literals in s: each query quoted whole, each quoted literal
// and its value, each number standing alone (not part of a longer figure or a
// name).
func (m literalMask) text(s string) string {
	if s == "" {
		return s
	}
	s = m.texts.Replace(s)
	for _, n := range m.numbers {
		s = replaceNumber(s, n)
	}
	return s
}

// replaceNumber writes ? for each occurrence of n in s that no digit, letter,
// '_' or '.' touches.
func replaceNumber(s, n string) string {
	var b strings.Builder
	for {
		i := strings.Index(s, n)
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		end := i + len(n)
		alone := (i == 0 || !figureByte(s[i-1])) && (end == len(s) || !figureByte(s[end]))
		b.WriteString(s[:i])
		if alone {
			b.WriteString(sqltext.MaskMark)
		} else {
			b.WriteString(n)
		}
		s = s[end:]
	}
}

func figureByte(c byte) bool {
	return c == '_' || c == '.' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}

// withLiteralsMasked is s as /status shows it: the queries with their literals
// as ?, and the messages that can quote them (the broker's words, and what is
// built of them) without them.
func (s Status) withLiteralsMasked() Status {
	queries := slices.Clone(s.Queries)
	for _, d := range s.DroppedQueries {
		queries = append(queries, d.SQL)
	}
	if len(queries) == 0 {
		return s
	}
	m := newLiteralMask(queries)
	for i, q := range s.Queries {
		s.Queries[i] = sqltext.Mask(q)
	}
	for i, d := range s.DroppedQueries {
		s.DroppedQueries[i] = Dropped{SQL: sqltext.Mask(d.SQL), Shape: d.Shape, Reason: m.text(d.Reason)}
	}
	s.LastError, s.ExitReason, s.Reason = m.text(s.LastError), m.text(s.ExitReason), m.text(s.Reason)
	for leg, why := range s.ShapeFallbacks {
		s.ShapeFallbacks[leg] = m.text(why)
	}
	s.Decided = s.decided()
	return s
}
