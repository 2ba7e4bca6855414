package shapes

import "github.com/warmup-sidecar/warmup-sidecar/pkg/pinot"

// TableSchema is one routable typed table with its schema and sample rows, the
// input of JoinShapes.
type TableSchema struct {
	Table  string
	Schema pinot.Schema
	Sample []pinot.Row
}

// JoinShapes builds multi-stage join shapes over the chosen tables: up to
// MaxJoins joins of two tables (not two legs of one hybrid table) that share a
// column name and type, taken in input order; when no pair shares one, a
// self-join of the first table that has a key. Each side is a LIMITed
// subquery, filtered to one key value both samples hold when there is one, so
// the join stays cheap whatever the tables' sizes.
func JoinShapes(tables []TableSchema) []Shape {
	ts := make([]*table, len(tables))
	for i, in := range tables {
		ts[i] = newTable(in.Table, in.Schema, in.Sample)
	}
	var out []Shape
	for i := range ts {
		for j := i + 1; j < len(ts) && len(out) < MaxJoins; j++ {
			if pinot.RawTableName(tables[i].Table) == pinot.RawTableName(tables[j].Table) {
				continue
			}
			if k, ok := sharedKey(ts[i], ts[j]); ok {
				out = append(out, Shape{
					Name:   "mse_join",
					Tables: []string{tables[i].Table, tables[j].Table},
					SQL:    joinSQL(ts[i], ts[j], k),
					Engine: MultiStage,
				})
			}
		}
	}
	if len(out) > 0 {
		return out
	}
	for i, t := range ts {
		if len(t.joinKeys) > 0 {
			return []Shape{{
				Name:   "mse_self_join",
				Tables: []string{tables[i].Table},
				SQL:    joinSQL(t, t, t.joinKeys[0]),
				Engine: MultiStage,
			}}
		}
	}
	return nil
}

// sharedKey is a's first join key that b has with the same name and type.
func sharedKey(a, b *table) (column, bool) {
	types := make(map[string]string, len(b.joinKeys))
	for _, o := range b.joinKeys {
		types[o.name] = o.typ
	}
	for _, k := range a.joinKeys {
		if typ, ok := types[k.name]; ok && typ == k.typ {
			return k, true
		}
	}
	return column{}, false
}

// joinSQL joins LIMITed key subqueries of a and b on k and groups by it.
func joinSQL(a, b *table, k column) string {
	filter := ""
	if v, ok := commonValue(a, b, k); ok {
		filter = k.ident() + " = " + v
	}
	side := func(t *table) query {
		return query{sel: []string{k.ident()}, from: t.from, where: []string{filter, t.narrow()}, limit: innerLimit}
	}
	l, r := quoteAlias("l"), quoteAlias("r")
	key := l + "." + k.ident()
	q := query{
		sel:     []string{key, countStar},
		from:    subquery(side(a), "l") + " JOIN " + subquery(side(b), "r") + " ON " + key + " = " + r + "." + k.ident(),
		groupBy: []string{key},
		orderBy: []string{countStar + " DESC"},
		limit:   rowLimit,
	}
	return q.String()
}

// commonValue is the first sample literal of k in a that b's sample also has.
func commonValue(a, b *table, k column) (string, bool) {
	bv := map[string]bool{}
	for _, v := range b.values(k, len(b.sample)) {
		bv[v] = true
	}
	for _, v := range a.values(k, len(a.sample)) {
		if bv[v] {
			return v, true
		}
	}
	return "", false
}
