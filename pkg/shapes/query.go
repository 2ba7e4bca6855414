package shapes

import (
	"strconv"
	"strings"

	"github.com/warmup-sidecar/warmup-sidecar/pkg/pinot"
)

// query assembles one SELECT; empty parts are left out. Every shape has a LIMIT.
type query struct {
	distinct bool
	sel      []string
	from     string
	where    []string // joined with AND; empty strings are skipped
	groupBy  []string
	having   string
	orderBy  []string
	limit    int
}

func (q query) String() string {
	var b strings.Builder
	b.WriteString("SELECT ")
	if q.distinct {
		b.WriteString("DISTINCT ")
	}
	b.WriteString(strings.Join(q.sel, ", "))
	b.WriteString(" FROM ")
	b.WriteString(q.from)
	var where []string
	for _, w := range q.where {
		if w != "" {
			where = append(where, w)
		}
	}
	if len(where) > 0 {
		b.WriteString(" WHERE ")
		b.WriteString(strings.Join(where, " AND "))
	}
	if len(q.groupBy) > 0 {
		b.WriteString(" GROUP BY ")
		b.WriteString(strings.Join(q.groupBy, ", "))
	}
	if q.having != "" {
		b.WriteString(" HAVING ")
		b.WriteString(q.having)
	}
	if len(q.orderBy) > 0 {
		b.WriteString(" ORDER BY ")
		b.WriteString(strings.Join(q.orderBy, ", "))
	}
	b.WriteString(" LIMIT ")
	b.WriteString(strconv.Itoa(max(q.limit, 1)))
	return b.String()
}

// subquery is q as a FROM item named alias.
func subquery(q query, alias string) string {
	return "(" + q.String() + ") AS " + quoteAlias(alias)
}

// idents quotes column names.
func idents(cs []column) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.ident()
	}
	return out
}

// call renders fn(args...).
func call(fn string, args ...string) string {
	return fn + "(" + strings.Join(args, ", ") + ")"
}

// quoteAlias quotes a name the generator makes up (result, CTE and subquery
// aliases), so no alias can collide with a reserved word.
func quoteAlias(a string) string { return pinot.QuoteIdent(a) }
