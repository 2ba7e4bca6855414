package shapes

// multiStageOnly builds the per-table shapes only the multi-stage engine
// plans: a window function and a CTE. Joins span tables: see JoinShapes.
func (t *table) multiStageOnly() []named {
	var out []named
	for _, build := range []func() (named, bool){t.window, t.cte} {
		if n, ok := build(); ok {
			out = append(out, n)
		}
	}
	return out
}

// window: ROW_NUMBER and a partition total over the best grouping column. The
// window runs over a LIMITed subquery so it sorts at most innerLimit rows.
func (t *table) window() (named, bool) {
	if len(t.groups) == 0 {
		return named{}, false
	}
	g := t.groups[0]
	ord := g
	switch {
	case len(t.metrics) > 0:
		ord = t.metrics[0]
	case t.time != nil:
		ord = t.time.column
	}
	cols := []column{g}
	if ord.name != g.name {
		cols = append(cols, ord)
	}
	inner := query{sel: idents(cols), from: t.from, where: []string{t.rangeFilter()}, limit: innerLimit}
	part := "PARTITION BY " + g.ident()
	total := "COUNT(*) OVER (" + part + ")"
	if ord.role == metric {
		total = "SUM(" + ord.ident() + ") OVER (" + part + ")"
	}
	outer := query{
		sel: append(idents(cols),
			"ROW_NUMBER() OVER ("+part+" ORDER BY "+ord.ident()+" DESC) AS "+quoteAlias("rn"),
			total+" AS "+quoteAlias("total")),
		from:  subquery(inner, "s"),
		limit: rowLimit,
	}
	return named{"mse_window", outer.String()}, true
}

// cte: a grouped CTE read back in order of its count.
func (t *table) cte() (named, bool) {
	if len(t.groups) == 0 {
		return named{}, false
	}
	g := t.groups[0].ident()
	n := quoteAlias("n")
	inner := query{
		sel:     []string{g, countStar + " AS " + n},
		from:    t.from,
		where:   []string{t.rangeFilter()},
		groupBy: []string{g},
		limit:   innerLimit,
	}
	outer := query{sel: []string{g, n}, from: quoteAlias("grouped"), orderBy: []string{n + " DESC"}, limit: rowLimit}
	return named{"mse_cte", "WITH " + quoteAlias("grouped") + " AS (" + inner.String() + ") " + outer.String()}, true
}
