//go:build e2e

package scenarios

import (
	"context"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	pinotapi "github.com/warmup-sidecar/warmup-sidecar/pkg/pinot"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/shapes"
)

// Every shape the generator derives from the e2e tables' schemas, on both engines, and the join
// shapes across them, must run on the real broker: a shape the broker drops warms nothing. The
// generator sees only schemas and sample rows, never these tables' names.
func TestGeneratedShapesAllRunOnTheRealBroker(t *testing.T) {
	ctx := t.Context()
	client := pinotapi.New(pinotapi.Options{BrokerURL: pinot.BrokerURL(), ControllerURL: pinot.ControllerURL()})
	mse := pinot.AtLeast1x()
	var all []shapes.Shape
	var joinable []shapes.TableSchema
	for _, raw := range pinot.Tables() {
		schema, err := client.Schema(ctx, raw)
		if err != nil {
			t.Fatalf("schema of %s: %v", raw, err)
		}
		legs, err := pinot.RoutingTable(ctx, raw)
		if err != nil {
			t.Fatal(err)
		}
		for _, leg := range slices.Sorted(maps.Keys(legs)) {
			rows, err := client.Sample(ctx, leg, 10)
			if err != nil {
				t.Fatalf("sample of %s: %v", leg, err)
			}
			got := shapes.Generate(leg, schema, rows, shapes.Options{MultiStage: mse})
			if len(got) == 0 {
				t.Errorf("%s: no shape generated", leg)
			}
			all = append(all, got...)
			joinable = append(joinable, shapes.TableSchema{Table: leg, Schema: schema, Sample: rows})
		}
	}
	if mse {
		all = append(all, shapes.JoinShapes(joinable)...)
	}
	names := map[string]bool{}
	for _, s := range all {
		qctx, cancel := context.WithTimeout(ctx, 20*time.Second)
		res := client.Query(qctx, pinotapi.Query{SQL: s.SQL, Timeout: 15 * time.Second, MultiStage: s.Engine == shapes.MultiStage,
			ClientQueryID: pinotapi.ProbeIDPrefix + "shape-check"})
		cancel()
		names[s.Name] = true
		if res.Class != pinotapi.Success {
			t.Errorf("%s on %s (%s) was not answered: %s %d %s\n  %s", s.Name, strings.Join(s.Tables, ","), s.Engine,
				res.Class, res.ErrorCode, res.Message, s.SQL)
		}
	}
	t.Logf("%d shapes (%d distinct names) over %d typed tables ran on Pinot %s", len(all), len(names), len(joinable),
		pinot.PinotVersion())
}
