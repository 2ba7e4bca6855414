package plan

import (
	"strconv"

	"github.com/warmup-sidecar/warmup-sidecar/pkg/sqltext"
)

// ShapeLimit1 is the shape of the default probe, SELECT * ... LIMIT 1.
const ShapeLimit1 = "limit1"

// CustomShape names the shape of the i-th (0-based) custom query: custom_1, ...
func CustomShape(i int) string { return "custom_" + strconv.Itoa(i+1) }

// Add appends one probe query with its shape.
func (p *Plan) Add(shape, sql string) {
	p.Queries = append(p.Queries, sql)
	p.Shapes = append(p.Shapes, shape)
}

// ShapeOf is the shape of Queries[i]; a query without a name gets the one the
// planner would have given it, so a hand-built plan still converges per query.
func (p Plan) ShapeOf(i int) string {
	if i < len(p.Shapes) && p.Shapes[i] != "" {
		return p.Shapes[i]
	}
	if p.Custom {
		return CustomShape(i)
	}
	return ShapeLimit1
}

// ShapeIndex maps each query to its shape and lists the distinct shapes in plan
// order. A query listed twice keeps its first shape, so no shape waits for
// probes that go to another.
func (p Plan) ShapeIndex() (map[string]string, []string) {
	of := make(map[string]string, len(p.Queries))
	var shapes []string
	seen := map[string]bool{}
	for i, q := range p.Queries {
		if _, dup := of[q]; dup {
			continue
		}
		s := p.ShapeOf(i)
		of[q] = s
		if !seen[s] {
			seen[s] = true
			shapes = append(shapes, s)
		}
	}
	return of, shapes
}

// ShapeNames lists the plan's distinct shapes in order.
func (p Plan) ShapeNames() []string {
	_, shapes := p.ShapeIndex()
	return shapes
}

// MultiStageShapes lists the distinct shapes of the plan's multi-stage queries,
// in order: the shapes a run judges together, as one engine (judge/converge_pool.go).
func (p Plan) MultiStageShapes() []string {
	var out []string
	seen := map[string]bool{}
	for i, q := range p.Queries {
		if s := p.ShapeOf(i); sqltext.MultiStage(q) && !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}
