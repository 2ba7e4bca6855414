package shapes

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"unicode"

	"github.com/warmup-sidecar/warmup-sidecar/pkg/pinot"
)

// sqlWords are the only bare words a generated query may hold: keywords and
// function names. Any other bare word is an identifier someone forgot to quote.
var sqlWords = set(
	"SELECT", "DISTINCT", "FROM", "WHERE", "AND", "NOT", "IN", "BETWEEN", "GROUP", "BY", "HAVING",
	"ORDER", "DESC", "LIMIT", "AS", "JOIN", "ON", "WITH", "OVER", "PARTITION", "TRUE", "FALSE",
	"COUNT", "SUM", "MIN", "MAX", "AVG", "DISTINCTCOUNT", "DISTINCTCOUNTHLL", "PERCENTILE",
	"PERCENTILETDIGEST", "DATETRUNC", "DATETIMECONVERT", "REGEXP_LIKE", "COUNTMV", "DISTINCTCOUNTMV",
	"SUMMV", "MAXMV", "ROW_NUMBER",
)

// aliases are the names the generator makes up.
var aliases = []string{"rn", "total", "s", "n", "grouped", "l", "r"}

var endsWithLimit = regexp.MustCompile(` LIMIT [1-9][0-9]*$`)

// wellFormed checks what can be checked without a SQL parser: quotes and
// parentheses balance, every bare word is a keyword or function, every quoted
// identifier names a known table, column or alias, and the query ends with a
// LIMIT.
func wellFormed(sql string, known map[string]bool) error {
	rs := []rune(sql)
	depth := 0
	for i := 0; i < len(rs); {
		c := rs[i]
		switch {
		case c == '"' || c == '\'':
			end, text, ok := closeQuote(rs, i)
			if !ok {
				return fmt.Errorf("unterminated %c at %d", c, i)
			}
			if c == '"' && !known[text] {
				return fmt.Errorf("quoted identifier %q names no table, column or alias", text)
			}
			i = end
		case c == '(':
			depth++
			i++
		case c == ')':
			depth--
			if depth < 0 {
				return fmt.Errorf("unbalanced ) at %d", i)
			}
			i++
		case unicode.IsLetter(c) || c == '_':
			j := i
			for j < len(rs) && (unicode.IsLetter(rs[j]) || unicode.IsDigit(rs[j]) || rs[j] == '_') {
				j++
			}
			if w := strings.ToUpper(string(rs[i:j])); !sqlWords[w] {
				return fmt.Errorf("bare word %q: an unquoted identifier or unknown function", string(rs[i:j]))
			}
			i = j
		case unicode.IsDigit(c):
			j := i
			for j < len(rs) && (unicode.IsDigit(rs[j]) || strings.ContainsRune(".eE+-", rs[j])) {
				j++
			}
			i = j
		case strings.ContainsRune(" ,.*=<>-", c):
			i++
		default:
			return fmt.Errorf("unexpected %q at %d", c, i)
		}
	}
	if depth != 0 {
		return fmt.Errorf("%d unclosed (", depth)
	}
	if !endsWithLimit.MatchString(sql) {
		return fmt.Errorf("no LIMIT at the end")
	}
	return nil
}

// closeQuote reads a quoted token starting at rs[i] (the quote doubled inside)
// and returns the index after it and its unquoted text.
func closeQuote(rs []rune, i int) (int, string, bool) {
	q := rs[i]
	var b strings.Builder
	for j := i + 1; j < len(rs); j++ {
		if rs[j] != q {
			b.WriteRune(rs[j])
			continue
		}
		if j+1 < len(rs) && rs[j+1] == q {
			b.WriteRune(q)
			j++
			continue
		}
		return j + 1, b.String(), true
	}
	return 0, "", false
}

// knownNames are the identifiers a query over these tables may quote.
func knownNames(tables []TableSchema) map[string]bool {
	m := map[string]bool{}
	for _, a := range aliases {
		m[a] = true
	}
	for _, t := range tables {
		m[t.Table] = true
		for _, c := range columnsOf(t.Schema) {
			m[c.name] = true
		}
	}
	return m
}

// checkShapes fails the test for any malformed shape, and for output beyond
// the bounds.
func checkShapes(t *testing.T, shapes []Shape, tables ...TableSchema) {
	t.Helper()
	known := knownNames(tables)
	var sse, mseOnly int
	for _, s := range shapes {
		if err := wellFormed(s.SQL, known); err != nil {
			t.Errorf("%s: %v\n%s", s.Name, err, s.SQL)
		}
		switch {
		case s.Engine == SingleStage:
			sse++
		case !strings.HasPrefix(s.Name, msePrefix) || s.Name == "mse_window" || s.Name == "mse_cte":
			mseOnly++
		}
	}
	if sse > MaxSingleStage*len(tables) || mseOnly > MaxMultiStageOnly*len(tables)+MaxJoins {
		t.Errorf("%d single-stage and %d multi-stage-only shapes over %d table(s): beyond the bounds", sse, mseOnly, len(tables))
	}
}

func TestWellFormedCatchesMistakes(t *testing.T) {
	known := map[string]bool{"t": true, "a": true}
	for _, bad := range []string{
		`SELECT a FROM "t" LIMIT 1`,                  // unquoted identifier
		`SELECT "a" FROM "t"`,                        // no LIMIT
		`SELECT "a FROM "t" LIMIT 1`,                 // unbalanced quote
		`SELECT COUNT(*)) FROM "t" LIMIT 1`,          // unbalanced parenthesis
		`SELECT "b" FROM "t" LIMIT 1`,                // unknown column
		`SELECT "a" FROM "t" WHERE "a" = 'x LIMIT 1`, // unterminated literal
		`SELECT "a" FROM "t" LIMIT 1; DROP`,          // two statements
	} {
		if wellFormed(bad, known) == nil {
			t.Errorf("accepted %s", bad)
		}
	}
	good := `SELECT "a", COUNT(*) FROM "t" WHERE "a" = 'it''s' GROUP BY "a" LIMIT 10`
	if err := wellFormed(good, known); err != nil {
		t.Errorf("rejected %s: %v", good, err)
	}
	if err := wellFormed(`SELECT "we""ird" FROM "t" LIMIT 1`, map[string]bool{`we"ird`: true, "t": true}); err != nil {
		t.Errorf("doubled quote inside an identifier: %v", err)
	}
	if got := pinot.QuoteIdent(`we"ird`); got != `"we""ird"` {
		t.Errorf("QuoteIdent = %s", got)
	}
}
