package shapes

import "github.com/warmup-sidecar/warmup-sidecar/pkg/pinot"

// Engine is the query engine a shape is meant for.
type Engine int

const (
	// SingleStage is Pinot's default (v1) engine.
	SingleStage Engine = iota
	// MultiStage is the multi-stage engine: the caller sets the query option
	// useMultistageEngine=true (pinot.Query.MultiStage); the SQL carries no prefix.
	MultiStage
)

func (e Engine) String() string {
	if e == MultiStage {
		return "multi-stage"
	}
	return "single-stage"
}

// Shape is one generated probe query.
type Shape struct {
	// Name is stable and short ("group_by_1", "mse_window"): the same kind of
	// query has the same name on every table, so per-shape series stay few.
	Name string
	// Tables are the typed tables the query reads (two for a join).
	Tables []string
	SQL    string
	Engine Engine
}

// Options tune Generate.
type Options struct {
	// MultiStage also emits every single-stage shape for the multi-stage engine
	// and the shapes only that engine has (window function, CTE).
	MultiStage bool
}

// Bounds on the output, whatever the schema's width: the builders are a fixed
// list, so the bounds hold by construction (and the tests check them).
const (
	// MaxSingleStage caps single-stage shapes per table.
	MaxSingleStage = 12
	// MaxMultiStageOnly caps the multi-stage-only shapes per table.
	MaxMultiStageOnly = 4
	// MaxJoins caps the join shapes of JoinShapes.
	MaxJoins = 2
	// rowLimit is the LIMIT of every shape that returns rows.
	rowLimit = 10
	// innerLimit caps rows a multi-stage subquery feeds to a join or window.
	innerLimit = 100
)

// Generate derives the probe shapes of one typed table from its schema and a few
// of its rows (nil for an empty table). It returns nil when the schema has no
// column any shape can use: the caller then keeps the LIMIT 1 probe. The same
// input always gives the same shapes in the same order.
func Generate(typedTable string, schema pinot.Schema, sample []pinot.Row, opts Options) []Shape {
	t := newTable(typedTable, schema, sample)
	if !t.usable() {
		return nil
	}
	sse := t.singleStage()
	out := make([]Shape, 0, 2*len(sse)+MaxMultiStageOnly)
	for _, q := range sse {
		out = append(out, Shape{Name: q.name, Tables: []string{typedTable}, SQL: q.sql, Engine: SingleStage})
	}
	if !opts.MultiStage {
		return out
	}
	for _, q := range sse {
		out = append(out, Shape{Name: msePrefix + q.name, Tables: []string{typedTable}, SQL: q.sql, Engine: MultiStage})
	}
	for _, q := range t.multiStageOnly() {
		out = append(out, Shape{Name: q.name, Tables: []string{typedTable}, SQL: q.sql, Engine: MultiStage})
	}
	return out
}

// MultiStagePrefix names the multi-stage run of a single-stage shape.
const MultiStagePrefix = "mse_"

const msePrefix = MultiStagePrefix

// named is a generated query before it becomes a Shape.
type named struct {
	name string
	sql  string
}
