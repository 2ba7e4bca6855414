package plan

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/warmup-sidecar/warmup-sidecar/pkg/pinot"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/selector"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/shapes"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/sqltext"
)

// ShapeMode chooses the default probe's queries.
type ShapeMode string

// Shape modes. The zero value is ShapesSchema.
const (
	// ShapesSchema derives each chosen table's probes from its schema and a few of
	// its rows (pkg/shapes); a leg without a usable schema or without sample rows
	// keeps LIMIT 1.
	ShapesSchema ShapeMode = "schema"
	// ShapesLimit1 is upstream Pinot's probe: SELECT * FROM "<t>" LIMIT 1 per leg.
	ShapesLimit1 ShapeMode = "limit1"
)

// SchemaCatalog is the optional part of a Catalog that schema shapes need: the
// table's schema (controller) and a few rows (broker). *pinot.Client satisfies it.
type SchemaCatalog interface {
	Schema(ctx context.Context, table string) (pinot.Schema, error)
	Sample(ctx context.Context, typedTable string, n int) ([]pinot.Row, error)
}

// sampleRows is how many rows feed the shapes' filter values.
const sampleRows = 10

// schemaLookups caps concurrent schema and sample calls while planning.
const schemaLookups = 4

// legShapes is what planning found for one typed leg.
type legShapes struct {
	leg    string
	shapes []shapes.Shape
	schema pinot.Schema
	rows   []pinot.Row
	why    string // why the leg keeps LIMIT 1; "" when it has shapes
}

// addProbes fills the plan's queries for the chosen tables: schema shapes where the
// catalog can give them, LIMIT 1 elsewhere, and (multiStage) the same shapes on
// the multi-stage engine plus the joins between the chosen tables.
func (pl Planner) addProbes(ctx context.Context, p *Plan, mode ShapeMode, multiStage bool) {
	legs := selector.Legs(p.Tables)
	sc, ok := pl.Catalog.(SchemaCatalog)
	if mode == ShapesLimit1 || !ok {
		for _, leg := range legs {
			p.Add(ShapeLimit1, DefaultProbe(leg))
		}
		return
	}
	found := pl.legShapes(ctx, sc, legs, multiStage)
	var joinable []shapes.TableSchema
	for _, f := range found {
		if len(f.shapes) == 0 {
			p.Add(ShapeLimit1, DefaultProbe(f.leg))
			if p.Fallbacks == nil {
				p.Fallbacks = map[string]string{}
			}
			p.Fallbacks[f.leg] = f.why
			continue
		}
		for _, s := range interleave(f.shapes) {
			p.addShape(s)
		}
		joinable = append(joinable, shapes.TableSchema{Table: f.leg, Schema: f.schema, Sample: f.rows})
	}
	if multiStage {
		for _, s := range shapes.JoinShapes(joinable) {
			p.addShape(s)
		}
	}
}

// legShapes reads each leg's schema and sample rows (a few at a time) and derives
// its shapes; results keep the legs' order.
func (pl Planner) legShapes(ctx context.Context, sc SchemaCatalog, legs []string, multiStage bool) []legShapes {
	out := make([]legShapes, len(legs))
	schemas := map[string]*schemaOnce{}
	for _, leg := range legs {
		raw := pinot.RawTableName(leg)
		if schemas[raw] == nil {
			schemas[raw] = &schemaOnce{}
		}
	}
	g := errgroup.Group{}
	g.SetLimit(schemaLookups)
	for i, leg := range legs {
		g.Go(func() error {
			defer func() {
				if v := recover(); v != nil {
					out[i] = legShapes{leg: leg, why: fmt.Sprintf("deriving shapes panicked: %v", v)}
				}
			}()
			out[i] = legShapes{leg: leg}
			schema, err := schemas[pinot.RawTableName(leg)].get(ctx, pl, sc, leg)
			if err != nil {
				out[i].why = "no schema: " + err.Error()
				return nil
			}
			rows, err := pl.sample(ctx, sc, leg)
			if why := unboundedWithout(rows, err); why != "" {
				out[i].why = why
				return nil
			}
			out[i].schema, out[i].rows = schema, rows
			out[i].shapes = shapes.Generate(leg, schema, rows, shapes.Options{MultiStage: multiStage})
			if len(out[i].shapes) == 0 {
				out[i].why = "no column a shape can use"
			}
			return nil
		})
	}
	_ = g.Wait()
	return out
}

// sampleAttempts: a sample that failed the way a cold broker fails (a timeout, a
// partial or 5xx answer: pinot.Transient) is asked once more before its leg falls
// back to LIMIT 1 for the whole run. A cold broker's first answer on a table is its
// slowest, and on a small broker it often outlasts the planning call's bound: the
// second finds the path the first warmed (on the test bed at 300m brokers the
// sample timed out in 10 of 16 runs). A query or permission error is not retried.
const sampleAttempts = 2

// sample reads a leg's sample rows, each attempt bounded as one planning call.
func (pl Planner) sample(ctx context.Context, sc SchemaCatalog, leg string) ([]pinot.Row, error) {
	var rows []pinot.Row
	var err error
	for attempt := 1; attempt <= sampleAttempts; attempt++ {
		sctx, cancel := pl.callContext(ctx)
		rows, err = sc.Sample(sctx, leg, sampleRows)
		cancel()
		var qe *pinot.QueryError
		if err == nil || ctx.Err() != nil || !errors.As(err, &qe) || qe.Result.Class != pinot.Transient {
			return rows, err
		}
		if attempt < sampleAttempts {
			continue
		}
		err = fmt.Errorf("%w (%d attempts)", err, sampleAttempts)
	}
	return rows, err
}

// unboundedWithout says why a leg keeps LIMIT 1 when its sample failed or was
// empty ("" when rows came): the sample's values are the shapes' filters and
// time bounds, and shapes without them would scan the whole table on every
// probe, at full concurrency, on a broker that is still cold.
func unboundedWithout(rows []pinot.Row, err error) string {
	switch {
	case err != nil:
		return "sample failed, shapes would have no filter or time bound: " + err.Error()
	case len(rows) == 0:
		return "sample returned no rows, shapes would have no filter or time bound"
	}
	return ""
}

// schemaOnce reads a raw table's schema once for both of a hybrid table's legs.
type schemaOnce struct {
	once   sync.Once
	schema pinot.Schema
	err    error
}

func (s *schemaOnce) get(ctx context.Context, pl Planner, sc SchemaCatalog, leg string) (pinot.Schema, error) {
	s.once.Do(func() {
		cctx, cancel := pl.callContext(ctx)
		defer cancel()
		s.schema, s.err = sc.Schema(cctx, leg)
	})
	return s.schema, s.err
}

// addShape adds one generated shape; a multi-stage one carries its engine in a
// SET statement, as an operator's own query would.
func (p *Plan) addShape(s shapes.Shape) {
	sql := s.SQL
	if s.Engine == shapes.MultiStage {
		sql = sqltext.WithMultiStage(sql)
	}
	p.Add(s.Name, sql)
}

// interleave puts each single-stage shape beside its multi-stage run, so a round
// mixes engines: an engine that fails every probe then never empties a round
// (which backs the run off) nor delays the other engine's warmth.
func interleave(in []shapes.Shape) []shapes.Shape {
	twin := map[string]int{}
	for i, s := range in {
		if s.Engine == shapes.MultiStage {
			twin[s.Name] = i
		}
	}
	out := make([]shapes.Shape, 0, len(in))
	used := make([]bool, len(in))
	for i, s := range in {
		if used[i] {
			continue
		}
		out, used[i] = append(out, s), true
		if j, ok := twin[shapes.MultiStagePrefix+s.Name]; ok && s.Engine == shapes.SingleStage && !used[j] {
			out, used[j] = append(out, in[j]), true
		}
	}
	return out
}
