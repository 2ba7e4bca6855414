package plan

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/warmup-sidecar/warmup-sidecar/pkg/pinot"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/selector"
)

// Plan is what a run will probe. Its JSON form is the plan subcommand's -json
// output.
type Plan struct {
	// Custom is true when the operator's queries replace the default probe.
	Custom bool `json:"custom"`
	// Queries are the SQL texts of one rotation: the custom queries, or the probes
	// of every leg of every chosen table (schema shapes or LIMIT 1). A multi-stage
	// query carries its engine as a leading SET statement.
	Queries []string `json:"queries"`
	// Shapes name each query's shape: Shapes[i] is Queries[i]'s (see ShapeOf).
	// Convergence is judged per query, each table leg's against itself, and
	// reported per shape (judge/converge.go).
	Shapes []string `json:"shapes,omitempty"`
	// Tables are the chosen tables (default probe only).
	Tables []selector.Table `json:"tables,omitempty"`
	// Coverage of the chosen tables over this broker's servers (default probe only).
	Coverage *selector.Coverage `json:"coverage,omitempty"`
	// Dropped are requested tables (Settings.Tables) this broker cannot route.
	Dropped []string `json:"dropped,omitempty"`
	// Capped are routable requested tables left out by Settings.MaxTables.
	Capped []string `json:"capped,omitempty"`
	// CatalogErr, when set, is why the controller's table list was not used:
	// coverage is then judged over the requested tables only.
	CatalogErr string `json:"catalog_error,omitempty"`
	// Fallbacks are the legs probed with LIMIT 1 under ShapesSchema, and why.
	Fallbacks map[string]string `json:"shape_fallbacks,omitempty"`
	// Engine is what the run found of the multi-stage engine.
	Engine Engine `json:"engine"`
}

// ErrNothingRoutable means no requested or listed table has routing on this broker yet.
var ErrNothingRoutable = errors.New("no routable table with servers on this broker yet")

// ErrNoCatalog means the default probe was asked of a Planner without a Catalog:
// no table can be chosen, now or later.
var ErrNoCatalog = errors.New("no catalog to choose tables from: Planner.Catalog is nil and no custom queries are set")

// DefaultProbe is the upstream default probe for one typed table.
func DefaultProbe(typedTable string) string {
	return "SELECT * FROM " + pinot.QuoteIdent(typedTable) + " LIMIT 1"
}

// Planner makes a Plan from settings, the controller and this broker's routing.
type Planner struct {
	// Catalog lists tables and routing; needed for the default probe only.
	Catalog Catalog
	// Settings choose between custom queries and the default probe, and cap it.
	Settings Settings
	// Engine is what the run found of the multi-stage engine: with MultiStage,
	// schema shapes also run on it, and join shapes are added.
	Engine Engine
}

// routingLookups caps concurrent routing-table calls while planning: a cluster can
// have hundreds of tables and the broker is just starting.
const routingLookups = 8

// Plan makes one attempt. ErrNothingRoutable (wrapped) means: try again later;
// ErrNoCatalog: never.
func (pl Planner) Plan(ctx context.Context) (Plan, error) {
	s := pl.Settings.WithDefaults()
	if len(s.Queries) > 0 {
		p := Plan{Custom: true, Engine: pl.Engine}
		for i, q := range s.Queries {
			p.Add(CustomShape(i), q)
		}
		return p, nil
	}
	if pl.Catalog == nil {
		return Plan{}, ErrNoCatalog
	}
	// The universe is every table this broker routes, so coverage of an explicit
	// table list is judged against all of them when a controller is known.
	names := s.Tables
	tctx, cancel := pl.callContext(ctx)
	all, err := pl.Catalog.Tables(tctx)
	cancel()
	var catalogErr string
	switch {
	case err == nil:
		names = union(s.Tables, all)
	case len(s.Tables) == 0:
		return Plan{}, fmt.Errorf("planning: %w", err)
	case !errors.Is(err, pinot.ErrNoController):
		// An explicit list needs no controller: probe it, and say that coverage is
		// judged over the listed tables only.
		catalogErr = err.Error()
	}
	routes, err := pl.routes(ctx, names)
	if err != nil {
		return Plan{}, fmt.Errorf("planning: %w", err)
	}
	tables := make([]selector.Table, 0, len(routes))
	for _, t := range routes {
		tables = append(tables, t)
	}
	var p Plan
	if len(s.Tables) > 0 {
		kept, dropped := selector.Routable(s.Tables, routes)
		// MAX_TABLES caps probed tables however they were chosen: an explicit
		// list keeps its order and is cut, and the cut is reported.
		if len(kept) > s.MaxTables {
			p.Capped = TableNames(kept[s.MaxTables:])
			kept = kept[:s.MaxTables]
		}
		cov := selector.Cover(tables, len(tables))
		cov.Chosen, cov.Uncovered = kept, selector.Uncovered(cov.Universe, kept)
		p.Tables, p.Coverage, p.Dropped = kept, &cov, dropped
	} else {
		cov := selector.Cover(tables, s.MaxTables)
		p.Tables, p.Coverage = cov.Chosen, &cov
	}
	p.CatalogErr = catalogErr
	if len(p.Tables) == 0 {
		return p, fmt.Errorf("planning over %d table(s): %w", len(names), ErrNothingRoutable)
	}
	p.Engine = pl.Engine
	pl.addProbes(ctx, &p, s.Shapes, pl.Engine.MultiStage)
	return p, nil
}

// routes asks the broker for the routing of each table; tables it cannot route
// (404) are left out. Any other failure fails the attempt.
func (pl Planner) routes(ctx context.Context, names []string) (map[string]selector.Table, error) {
	var mu sync.Mutex
	out := make(map[string]selector.Table, len(names))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(routingLookups)
	for _, name := range names {
		g.Go(func() (err error) {
			// errgroup does not recover: a panic here would end the process, not the plan.
			defer func() {
				if v := recover(); v != nil {
					err = fmt.Errorf("looking up routing of %q panicked: %v", name, v)
				}
			}()
			cctx, cancel := pl.callContext(gctx)
			defer cancel()
			rt, err := pl.Catalog.RoutingTable(cctx, name)
			if errors.Is(err, pinot.ErrNoRouting) {
				return nil
			}
			if err != nil {
				return err
			}
			t := selector.TableFromRouting(name, selector.Routing(rt))
			mu.Lock()
			out[name] = t
			mu.Unlock()
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return out, nil
}

// minCallTimeout is the least a planning call is given, however little of the
// budget is left (the budget's own deadline still ends it).
const minCallTimeout = time.Second

// callContext bounds one planning call (the table list, a routing table, a
// schema, a sample): at most the probe timeout, and at most a fifth of the time
// left. A controller or broker that accepts connections and never answers then
// costs the plan a share of the budget, not all of it, and the call that
// failed is the one named.
func (pl Planner) callContext(ctx context.Context) (context.Context, context.CancelFunc) {
	d := pl.Settings.WithDefaults().ProbeTimeout
	if dl, ok := ctx.Deadline(); ok {
		d = min(d, max(time.Until(dl)/5, minCallTimeout))
	}
	return context.WithTimeout(ctx, d)
}

// TableNames lists the names of tables, in order.
func TableNames(ts []selector.Table) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.Name
	}
	return out
}

// union returns a followed by the items of b not in a.
func union(a, b []string) []string {
	seen := make(map[string]bool, len(a)+len(b))
	out := make([]string, 0, len(a)+len(b))
	for _, x := range append(append([]string(nil), a...), b...) {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}
