package plan

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/internal/fakepinot"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/pinot"
)

// planFake plans once over the three-server fake as it serves by default (a
// 1.5.1 cluster: schemas, samples), the multi-stage engine taken as found.
func planFake(t *testing.T, b *fakepinot.Broker, c *fakepinot.Controller, s Settings) Plan {
	t.Helper()
	cl := pinot.New(pinot.Options{BrokerURL: b.URL(), ControllerURL: c.URL()})
	p, err := Planner{Catalog: cl, Settings: s, Engine: Engine{MultiStage: true}}.Plan(context.Background())
	if err != nil {
		t.Fatalf("plan: %v", err)
	}
	return p
}

func newFake(t *testing.T) (*fakepinot.Broker, *fakepinot.Controller) {
	t.Helper()
	b := fakepinot.NewBroker(fakepinot.ThreeServers())
	c := fakepinot.NewController(fakepinot.ThreeServerTables()...)
	t.Cleanup(b.Close)
	t.Cleanup(c.Close)
	return b, c
}

// With a schema and a sample, every generated probe reads a few rows: each is
// bounded by the sample's time range, on both engines and in the joins.
func TestPlanShapesFromSchemaAndSampleAreTimeBounded(t *testing.T) {
	b, c := newFake(t)
	p := planFake(t, b, c, Settings{})
	if len(p.Fallbacks) != 0 {
		t.Fatalf("fallbacks %q on a cluster with schemas and rows", p.Fallbacks)
	}
	if n := len(p.MultiStageShapes()); n == 0 {
		t.Fatalf("no multi-stage shape in %q", p.Shapes)
	}
	for i, q := range p.Queries {
		if !strings.Contains(q, `"ts" BETWEEN `) {
			t.Errorf("%s has no time bound: %s", p.ShapeOf(i), q)
		}
	}
}

// A leg whose sample does not come back whole keeps the LIMIT 1 probe, and the
// plan says why: shapes without sample values would have no filter and no time
// bound, full scans of a table however large. The other legs keep their shapes.
func TestPlanFailedSampleKeepsLimit1ForThatLeg(t *testing.T) {
	const leg = "events_REALTIME"
	big := `{"resultTable":{"dataSchema":{"columnNames":["a"],"columnDataTypes":["STRING"]},"rows":[["` +
		strings.Repeat("x", pinot.MaxAnswerBytes) + `"]]},"exceptions":[],"numServersQueried":1,"numServersResponded":1}`
	for _, tc := range []struct {
		name, why string
		answer    func(n int) (int, string)
	}{
		{"execution error", "error 200", func(int) (int, string) {
			return 200, fakepinot.Error(200, "QueryExecutionError", "java.lang.OutOfMemoryError")
		}},
		{"partial answer", "partial answer", func(int) (int, string) { return 200, fakepinot.Partial(2, 1) }},
		{"answer over the size cap", "larger than", func(int) (int, string) { return 200, big }},
		{"HTTP 503", "HTTP 503", func(int) (int, string) { return 503, "<html>busy</html>" }},
		{"empty leg", "no rows", func(int) (int, string) {
			return 200, fakepinot.RowsAnswer(fakepinot.DefaultSchema("events"), 0, 1)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, c := newFake(t)
			b.SetSampleAnswer(func(typed string, n int) (int, string) {
				if typed == leg {
					return tc.answer(n)
				}
				return 200, fakepinot.RowsAnswer(fakepinot.DefaultSchema(fakepinot.RawName(typed)), n, 1)
			})
			p := planFake(t, b, c, Settings{})
			if why := p.Fallbacks[leg]; !strings.Contains(why, "sample") || !strings.Contains(why, tc.why) {
				t.Errorf("fallback of %s: %q, want the sample's failure (%q)", leg, why, tc.why)
			}
			var ofLeg []string
			for _, q := range p.Queries {
				if strings.Contains(q, `"`+leg+`"`) {
					ofLeg = append(ofLeg, q)
				}
			}
			if want := DefaultProbe(leg); len(ofLeg) != 1 || ofLeg[0] != want {
				t.Errorf("queries of %s: %q, want only %q", leg, ofLeg, want)
			}
			if _, other := p.Fallbacks["events_OFFLINE"]; other || !strings.Contains(strings.Join(p.Queries, "\n"), `FROM "events_OFFLINE" WHERE`) {
				t.Errorf("events_OFFLINE lost its shapes: fallbacks %q", p.Fallbacks)
			}
		})
	}
}

// Each table's sample asks the broker for no more time than one planning call
// has, not the whole budget's.
func TestPlanSampleTimeoutIsThePlanningCallBound(t *testing.T) {
	b, c := newFake(t)
	cl := pinot.New(pinot.Options{BrokerURL: b.URL(), ControllerURL: c.URL()})
	s := Settings{ProbeTimeout: 2 * time.Second, Tables: []string{"orders"}}
	ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
	defer cancel()
	if _, err := (Planner{Catalog: cl, Settings: s}).Plan(ctx); err != nil {
		t.Fatal(err)
	}
	var ms int
	if _, err := fmt.Sscanf(b.LastQueryOptions(), "timeoutMs=%d;", &ms); err != nil || ms <= 0 || ms > 2000 {
		t.Errorf("sample options %q: want timeoutMs of at most the 2 s planning bound", b.LastQueryOptions())
	}
}

// A sample that fails as a cold broker fails (busy, timed out, partial) is asked
// once more, and a second answer gives the leg its shapes; a query the broker
// cannot run is not asked again, and two cold failures keep LIMIT 1 saying so.
func TestPlanRetriesAColdSampleOnce(t *testing.T) {
	const leg = "events_REALTIME"
	for _, tc := range []struct {
		name      string
		answers   []func(typed string, n int) (int, string)
		wantCalls int
		shapes    bool
		why       string
	}{
		{"busy, then rows", []func(string, int) (int, string){
			func(string, int) (int, string) { return 503, "<html>busy</html>" },
			nil,
		}, 2, true, ""},
		{"partial twice", []func(string, int) (int, string){
			func(string, int) (int, string) { return 200, fakepinot.Partial(2, 1) },
			func(string, int) (int, string) { return 200, fakepinot.Partial(2, 1) },
		}, 2, false, "(2 attempts)"},
		{"no such table: not retried", []func(string, int) (int, string){
			func(string, int) (int, string) {
				return 200, fakepinot.Error(190, "TableDoesNotExistError", "no table")
			},
		}, 1, false, "190"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, c := newFake(t)
			calls := 0
			b.SetSampleAnswer(func(typed string, n int) (int, string) {
				if typed == leg {
					calls++
					if calls <= len(tc.answers) && tc.answers[calls-1] != nil {
						return tc.answers[calls-1](typed, n)
					}
				}
				return 200, fakepinot.RowsAnswer(fakepinot.DefaultSchema(fakepinot.RawName(typed)), n, 1)
			})
			p := planFake(t, b, c, Settings{})
			if calls != tc.wantCalls {
				t.Errorf("%d samples of %s, want %d", calls, leg, tc.wantCalls)
			}
			why, fell := p.Fallbacks[leg]
			if fell == tc.shapes {
				t.Errorf("fallback of %s: %q (fell back %v), want shapes %v", leg, why, fell, tc.shapes)
			}
			if !tc.shapes && !strings.Contains(why, tc.why) {
				t.Errorf("fallback of %s: %q, want it to say %q", leg, why, tc.why)
			}
		})
	}
}
