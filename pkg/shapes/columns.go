package shapes

import (
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/warmup-sidecar/warmup-sidecar/pkg/pinot"
)

// role is what the schema says a column is for.
type role int

const (
	dimension role = iota
	metric
	dateTime
)

// column is one usable schema column; typ is Pinot's data type, upper case.
type column struct {
	name   string
	typ    string
	single bool
	role   role
}

func (c column) ident() string { return pinot.QuoteIdent(c.name) }

// Data types by what a shape may do with them. JSON, BYTES and the complex
// types (MAP, LIST, STRUCT) are in none: they cannot be grouped, compared or
// summed without type-specific functions.
var (
	numericTypes    = set("INT", "LONG", "FLOAT", "DOUBLE")
	comparableTypes = set("INT", "LONG", "FLOAT", "DOUBLE", "BIG_DECIMAL", "BOOLEAN", "TIMESTAMP", "STRING")
	// mvTypes have MV aggregations (COUNTMV, DISTINCTCOUNTMV; SUMMV if numeric).
	mvTypes = set("INT", "LONG", "FLOAT", "DOUBLE", "STRING")
	// joinKeyTypes are equality keys cheap to hash and exact to compare.
	joinKeyTypes = set("INT", "LONG", "STRING")
)

func set(xs ...string) map[string]bool {
	m := make(map[string]bool, len(xs))
	for _, x := range xs {
		m[x] = true
	}
	return m
}

// groupRank orders GROUP BY candidates: types that usually hold few distinct
// values first, then integers (often ids), floating point and timestamps last.
func groupRank(typ string) int {
	switch typ {
	case "STRING", "BOOLEAN":
		return 0
	case "INT":
		return 1
	case "LONG":
		return 2
	}
	return 3
}

// maxNameBytes is Pinot's SQL parser's identifier limit.
const maxNameBytes = 1024

// usableName rejects names no SQL text should carry: empty, not UTF-8, control
// characters, or beyond the parser's identifier limit.
func usableName(n string) bool {
	if n == "" || len(n) > maxNameBytes || !utf8.ValidString(n) {
		return false
	}
	return !strings.ContainsFunc(n, unicode.IsControl)
}

// columnsOf lists a schema's columns in schema order (dimensions, metrics,
// date-time, legacy time), first of a name wins; complex fields are left out.
func columnsOf(s pinot.Schema) []column {
	var out []column
	seen := map[string]bool{}
	add := func(name, typ string, single bool, r role) {
		if !usableName(name) || seen[name] {
			return
		}
		seen[name] = true
		out = append(out, column{name: name, typ: strings.ToUpper(typ), single: single, role: r})
	}
	for _, f := range s.DimensionFieldSpecs {
		add(f.Name, f.DataType, f.SingleValueField, dimension)
	}
	for _, f := range s.MetricFieldSpecs {
		add(f.Name, f.DataType, f.SingleValueField, metric)
	}
	for _, f := range s.DateTimeFieldSpecs {
		add(f.Name, f.DataType, f.SingleValueField, dateTime)
	}
	if s.TimeFieldSpec != nil {
		g := s.TimeFieldSpec.Column()
		add(g.Name, g.DataType, true, dateTime)
	}
	return out
}

// table is one typed table with the columns each shape uses, chosen once.
type table struct {
	from   string // the quoted typed table name
	sample []pinot.Row
	// groups are up to two GROUP BY / equality-filter columns, best first.
	groups []column
	// metrics are up to two numeric single-value metrics, in schema order.
	metrics []column
	// pct is the column of the percentile shape: a metric, else a numeric dimension.
	pct *column
	// str is a string column for REGEXP_LIKE.
	str *column
	// mv is a multi-value column for the MV aggregations.
	mv   *column
	time *timeColumn
	// joinKeys are equi-join candidates, best grouping candidates first.
	joinKeys []column
}

// maxGroups and maxMetrics bound how many columns a shape names.
const (
	maxGroups  = 2
	maxMetrics = 2
)

func newTable(typedTable string, s pinot.Schema, sample []pinot.Row) *table {
	t := &table{from: pinot.QuoteIdent(typedTable), sample: sample, time: timeColumnOf(s)}
	var cands []column
	for _, c := range columnsOf(s) {
		switch {
		case c.role == dimension && c.single && comparableTypes[c.typ]:
			cands = append(cands, c)
			if t.pct == nil && numericTypes[c.typ] {
				t.pct = &c
			}
		case c.role == dimension && !c.single && mvTypes[c.typ] && t.mv == nil:
			t.mv = &c
		case c.role == metric && c.single && numericTypes[c.typ] && len(t.metrics) < maxMetrics:
			t.metrics = append(t.metrics, c)
		}
	}
	if len(t.metrics) > 0 {
		t.pct = &t.metrics[0]
	}
	ranked := t.rank(cands)
	t.groups = ranked[:min(len(ranked), maxGroups)]
	for _, c := range ranked {
		if c.typ == "STRING" && t.str == nil {
			t.str = &c
		}
		if joinKeyTypes[c.typ] {
			t.joinKeys = append(t.joinKeys, c)
		}
	}
	return t
}

// rank orders GROUP BY candidates: columns with a sample value to filter on
// first, then by type rank, then fewest distinct values in the sample (low
// cardinality looks like a grouping column), then schema order.
func (t *table) rank(cands []column) []column {
	type ranked struct {
		c        column
		rank     int
		distinct int
		order    int
	}
	rs := make([]ranked, len(cands))
	for i, c := range cands {
		rs[i] = ranked{c: c, rank: groupRank(c.typ), distinct: len(t.values(c, len(t.sample))), order: i}
	}
	sort.SliceStable(rs, func(i, j int) bool {
		if hi, hj := rs[i].distinct > 0, rs[j].distinct > 0; hi != hj {
			return hi
		}
		if rs[i].rank != rs[j].rank {
			return rs[i].rank < rs[j].rank
		}
		if rs[i].distinct != rs[j].distinct {
			return rs[i].distinct < rs[j].distinct
		}
		return rs[i].order < rs[j].order
	})
	out := make([]column, len(rs))
	for i, r := range rs {
		out[i] = r.c
	}
	return out
}

// usable is false when no shape can be built: the caller keeps LIMIT 1.
func (t *table) usable() bool {
	return len(t.groups) > 0 || len(t.metrics) > 0 || t.pct != nil || t.mv != nil || t.time != nil
}
