package shapes

import (
	"strings"

	"github.com/warmup-sidecar/warmup-sidecar/pkg/pinot"
)

// Filters of each kind, built from sample values; "" when the sample has no
// value to filter on (the shape then runs unfiltered and stays valid).

// maxInValues bounds IN lists.
const maxInValues = 3

// eqFilter is `g = v` on the best grouping column that has a value.
func (t *table) eqFilter() string {
	for _, c := range t.groups {
		if v := t.values(c, 1); len(v) > 0 {
			return c.ident() + " = " + v[0]
		}
	}
	return ""
}

// inFilter is `g IN (v1, v2, v3)`.
func (t *table) inFilter() string {
	for _, c := range t.groups {
		if v := t.values(c, maxInValues); len(v) > 0 {
			return c.ident() + " IN (" + strings.Join(v, ", ") + ")"
		}
	}
	return ""
}

// notInFilter is `g NOT IN (v)` on the second grouping column when it has a
// value, so it differs from the equality filters.
func (t *table) notInFilter() string {
	for i := len(t.groups) - 1; i >= 0; i-- {
		c := t.groups[i]
		if v := t.values(c, 1); len(v) > 0 {
			return c.ident() + " NOT IN (" + v[0] + ")"
		}
	}
	return ""
}

// rangeFilter is `c BETWEEN lo AND hi` over the sample's time values, else over
// the percentile column's.
func (t *table) rangeFilter() string {
	var cs []column
	if t.time != nil {
		cs = append(cs, t.time.column)
	}
	if t.pct != nil {
		cs = append(cs, *t.pct)
	}
	for _, c := range cs {
		if lo, hi, ok := t.bounds(c); ok {
			return c.ident() + " BETWEEN " + lo + " AND " + hi
		}
	}
	return ""
}

// regexpFilter is REGEXP_LIKE on the string column, "" without one.
func (t *table) regexpFilter() string {
	if t.str == nil {
		return ""
	}
	return call("REGEXP_LIKE", t.str.ident(), pinot.QuoteString(t.regexpPrefix(*t.str)))
}

// narrow is `time BETWEEN lo AND hi` over the sample's time values ("" without
// them). Shapes whose own filter is not a range add it, so a probe reads the
// rows of the sample's time span however large the table: probes warm the
// serve path, they must not load the servers the broker routes to. Without a
// time column only the sample's values bound a shape.
func (t *table) narrow() string {
	if t.time == nil {
		return ""
	}
	if lo, hi, ok := t.bounds(t.time.column); ok {
		return t.time.ident() + " BETWEEN " + lo + " AND " + hi
	}
	return ""
}
