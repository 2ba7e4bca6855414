package shapes

import "strconv"

// countStar is the aggregate most shapes order by.
const countStar = "COUNT(*)"

// singleStage builds the single-stage shapes in a fixed order; a shape whose
// columns the schema lacks is left out.
func (t *table) singleStage() []named {
	var out []named
	for _, build := range []func() (named, bool){
		t.selection,
		t.aggregation,
		t.groupByOne,
		t.groupByHaving,
		t.distinct,
		t.distinctCount,
		t.percentile,
		t.timeBucket,
		t.regexpLike,
		t.multiValue,
	} {
		if n, ok := build(); ok {
			out = append(out, n)
		}
	}
	return out
}

// maxSelected bounds the selection's column list.
const maxSelected = 6

// selection: a filtered selection ordered by time, newest first (by another
// sortable column without a time column).
func (t *table) selection() (named, bool) {
	var cols []column
	if t.time != nil {
		cols = append(cols, t.time.column)
	}
	cols = append(cols, t.groups...)
	cols = append(cols, t.metrics...)
	if t.mv != nil {
		cols = append(cols, *t.mv)
	}
	if len(cols) > maxSelected {
		cols = cols[:maxSelected]
	}
	q := query{sel: idents(cols), from: t.from, where: []string{t.eqFilter(), t.narrow()}, limit: rowLimit}
	name := "filter_order"
	switch {
	case t.time != nil:
		name = "filter_order_time"
		q.orderBy = []string{t.time.ident() + " DESC"}
	case len(cols) > 0 && cols[0].single:
		q.orderBy = []string{cols[0].ident() + " DESC"}
	}
	return named{name, q.String()}, len(cols) > 0
}

// aggregation: COUNT and SUM/MIN/MAX/AVG over metrics under an IN filter;
// without metrics, COUNT and DISTINCTCOUNT of a dimension.
func (t *table) aggregation() (named, bool) {
	sel := []string{countStar}
	for i, m := range t.metrics {
		fns := []string{"SUM", "MAX"}
		if i == 0 {
			fns = []string{"SUM", "MIN", "MAX", "AVG"}
		}
		for _, fn := range fns {
			sel = append(sel, call(fn, m.ident()))
		}
	}
	name := "agg_metrics"
	if len(t.metrics) == 0 {
		name = "agg_count"
		if len(t.groups) > 0 {
			sel = append(sel, call("DISTINCTCOUNT", t.groups[0].ident()))
		}
	}
	q := query{sel: sel, from: t.from, where: []string{t.inFilter(), t.narrow()}, limit: rowLimit}
	return named{name, q.String()}, true
}

// firstMetricSum is SUM of the first metric, or nothing without metrics.
func (t *table) firstMetricSum() []string {
	if len(t.metrics) == 0 {
		return nil
	}
	return []string{call("SUM", t.metrics[0].ident())}
}

// groupByOne: one GROUP BY column, ordered by an aggregate, under a range.
func (t *table) groupByOne() (named, bool) {
	if len(t.groups) == 0 {
		return named{}, false
	}
	g := t.groups[0].ident()
	q := query{
		sel:     append([]string{g, countStar}, t.firstMetricSum()...),
		from:    t.from,
		where:   []string{t.rangeFilter()},
		groupBy: []string{g},
		orderBy: []string{countStar + " DESC"},
		limit:   rowLimit,
	}
	return named{"group_by_1", q.String()}, true
}

// groupByHaving: GROUP BY up to two columns with HAVING, ordered by an
// aggregate, under NOT IN. Named by its column count.
func (t *table) groupByHaving() (named, bool) {
	if len(t.groups) == 0 {
		return named{}, false
	}
	q := query{
		sel:     append(append(idents(t.groups), countStar), t.firstMetricSum()...),
		from:    t.from,
		where:   []string{t.notInFilter(), t.narrow()},
		groupBy: idents(t.groups),
		having:  countStar + " > 0",
		orderBy: []string{countStar + " DESC"},
		limit:   rowLimit,
	}
	return named{"group_by_" + strconv.Itoa(len(t.groups)) + "_having", q.String()}, true
}

func (t *table) distinct() (named, bool) {
	if len(t.groups) == 0 {
		return named{}, false
	}
	q := query{distinct: true, sel: idents(t.groups), from: t.from, where: []string{t.rangeFilter()}, limit: rowLimit}
	return named{"distinct", q.String()}, true
}

// distinctCount: exact and HyperLogLog distinct counts (HLL of the second
// grouping column when there is one, so both columns' dictionaries are read).
func (t *table) distinctCount() (named, bool) {
	if len(t.groups) == 0 {
		return named{}, false
	}
	last := t.groups[len(t.groups)-1]
	q := query{
		sel:   []string{call("DISTINCTCOUNT", t.groups[0].ident()), call("DISTINCTCOUNTHLL", last.ident())},
		from:  t.from,
		where: []string{t.rangeFilter()},
		limit: rowLimit,
	}
	return named{"distinctcount", q.String()}, true
}

func (t *table) percentile() (named, bool) {
	if t.pct == nil {
		return named{}, false
	}
	p := t.pct.ident()
	q := query{
		sel:   []string{call("PERCENTILE", p, "95"), call("PERCENTILETDIGEST", p, "99")},
		from:  t.from,
		where: []string{t.inFilter(), t.narrow()},
		limit: rowLimit,
	}
	return named{"percentile", q.String()}, true
}

// timeBucket: GROUP BY a day bucket of the time column, newest first.
func (t *table) timeBucket() (named, bool) {
	if t.time == nil {
		return named{}, false
	}
	b, ok := t.time.bucket()
	if !ok {
		return named{}, false
	}
	q := query{
		sel:     []string{b, countStar},
		from:    t.from,
		where:   []string{t.rangeFilter()},
		groupBy: []string{b},
		orderBy: []string{b + " DESC"},
		limit:   rowLimit,
	}
	return named{"time_bucket", q.String()}, true
}

func (t *table) regexpLike() (named, bool) {
	f := t.regexpFilter()
	if f == "" {
		return named{}, false
	}
	q := query{sel: []string{countStar}, from: t.from, where: []string{f, t.narrow()}, limit: rowLimit}
	return named{"regexp_like", q.String()}, true
}

// multiValue: the MV aggregations; a plain aggregate over an MV column would
// be rejected.
func (t *table) multiValue() (named, bool) {
	if t.mv == nil {
		return named{}, false
	}
	m := t.mv.ident()
	sel := []string{call("COUNTMV", m), call("DISTINCTCOUNTMV", m)}
	if numericTypes[t.mv.typ] {
		sel = append(sel, call("SUMMV", m), call("MAXMV", m))
	}
	q := query{sel: sel, from: t.from, where: []string{t.narrow()}, limit: rowLimit}
	return named{"agg_mv", q.String()}, true
}
