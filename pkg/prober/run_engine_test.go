package prober

import (
	"context"
	"errors"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/pkg/pinot"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/prober/event"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/prober/judge"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/prober/plan"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/sqltext"
)

// engineBroker answers every query; multi-stage ones (a SET prefix) per its fields.
type engineBroker struct {
	mseServed bool          // answers to multi-stage queries carry stageStats
	mseFails  bool          // multi-stage queries fail (transient)
	mseBad    string        // multi-stage queries are compile errors with this message
	mseDelay  time.Duration // multi-stage queries answer after this long, like a cold planner
	mseAnswer []byte        // multi-stage queries get this HTTP 200 body (a recorded answer)
	mse, sse  atomic.Int64  // queries seen per engine
}

func (b *engineBroker) Query(ctx context.Context, q pinot.Query) pinot.Result {
	if !sqltext.MultiStage(q.SQL) {
		b.sse.Add(1)
		return pinot.Result{Class: pinot.Success, HTTPStatus: 200}
	}
	b.mse.Add(1)
	select {
	case <-time.After(b.mseDelay):
	case <-ctx.Done():
		return pinot.Result{Class: pinot.Transient, Message: "probe timed out"}
	}
	switch {
	case b.mseAnswer != nil:
		return pinot.Classify(200, b.mseAnswer)
	case b.mseBad != "":
		return pinot.Result{Class: pinot.BadQuery, HTTPStatus: 200, ErrorCode: 150, Message: b.mseBad}
	case b.mseFails:
		return pinot.Result{Class: pinot.Transient, Message: "probe timed out"}
	}
	return pinot.Result{Class: pinot.Success, HTTPStatus: 200, MultiStage: b.mseServed}
}

// schemaCatalog routes two tables on two servers and gives each a schema.
type schemaCatalog struct{ schemaErr error }

func (schemaCatalog) Tables(context.Context) ([]string, error) {
	return []string{"orders", "users"}, nil
}
func (schemaCatalog) RoutingTable(_ context.Context, t string) (pinot.RoutingTable, error) {
	return pinot.RoutingTable{t + "_OFFLINE": {"Server_" + t: {"seg0"}}}, nil
}
func (c schemaCatalog) Schema(_ context.Context, t string) (pinot.Schema, error) {
	if c.schemaErr != nil {
		return pinot.Schema{}, c.schemaErr
	}
	return pinot.Schema{
		SchemaName:          pinot.RawTableName(t),
		DimensionFieldSpecs: []pinot.FieldSpec{{Name: "user_id", DataType: "INT", SingleValueField: true}, {Name: "country", DataType: "STRING", SingleValueField: true}},
		MetricFieldSpecs:    []pinot.FieldSpec{{Name: "amount", DataType: "DOUBLE", SingleValueField: true}},
	}, nil
}
func (schemaCatalog) Sample(context.Context, string, int) ([]pinot.Row, error) {
	return []pinot.Row{{"user_id": 7, "country": "DE", "amount": 1.5}}, nil
}

func runEngine(t *testing.T, b *engineBroker, cat Catalog, s Settings, budget time.Duration) (Report, *recorder) {
	t.Helper()
	rec := &recorder{}
	s.Concurrency = 2
	p := &Prober{Broker: b, Catalog: cat, Settings: s, Observer: rec}
	return p.Run(context.Background(), time.Now().Add(budget)), rec
}

func TestDetectMultiStage(t *testing.T) {
	for _, c := range []struct {
		name string
		b    *engineBroker
		ok   bool
		why  string
	}{
		{"served", &engineBroker{mseServed: true}, true, "serves the multi-stage engine"},
		{"single-stage answer", &engineBroker{}, false, "no multi-stage engine"},
		// A 1.5.1 broker started with pinot.multistage.engine.enabled=false, as recorded.
		{"not enabled (the real 450 answer)", &engineBroker{mseAnswer: recordedMSEDisabled(t)}, false,
			"the broker's multi-stage engine is not enabled (error 450: InternalError: V2 Multi-Stage query engine not enabled.)"},
		{"refused", &engineBroker{mseBad: "error 150: no such engine here"}, false, "no such engine here"},
		{"never answers (a cold planner)", &engineBroker{mseFails: true}, true, "did not answer in time (probe timed out): probing it as a cold one"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ok, why := plan.DetectMultiStage(context.Background(), c.b, time.Second)
			if ok != c.ok || !strings.Contains(why, c.why) {
				t.Errorf("DetectMultiStage = %v, %q; want %v and %q", ok, why, c.ok, c.why)
			}
			if c.b.mse.Load() != 1 {
				t.Errorf("the engine was asked %d times, want once", c.b.mse.Load())
			}
		})
	}
}

// recordedMSEDisabled is the real answer of a 1.5.1 broker without the multi-stage
// engine to SET useMultistageEngine=true; SELECT 1 (e2e/cluster facts_mse_test.go).
func recordedMSEDisabled(t *testing.T) []byte {
	t.Helper()
	body, err := os.ReadFile("../../e2e/testdata/broker-responses/pinot-1.5.1/query-mse-disabled-select1.json")
	if err != nil {
		t.Fatal(err)
	}
	return body
}

// A broker whose multi-stage engine is not enabled has none to warm: the run
// sends no multi-stage probe after the detection, is judged on the single-stage
// shapes alone and ends warm on their evidence, the plan saying why.
func TestBrokerWithoutTheMultiStageEngineWarmsOnSingleStage(t *testing.T) {
	for _, conc := range []int{1, 4} { // one lane (the plan waits for the engine), or a lane per engine
		t.Run(strconv.Itoa(conc)+" workers", func(t *testing.T) {
			b := &engineBroker{mseAnswer: recordedMSEDisabled(t)}
			rec := &recorder{}
			p := &Prober{Broker: b, Catalog: schemaCatalog{}, Settings: Settings{MinIterations: 50, Exit: judge.ExitConverged, Concurrency: conc}, Observer: rec}
			rep := p.Run(context.Background(), time.Now().Add(10*time.Second))
			if rep.Outcome != OutcomeWarm {
				t.Fatalf("outcome %s (%v, %s), want warm on the single-stage evidence", rep.Outcome, rep.Err, rep.Reason)
			}
			if rep.Plan.Engine.MultiStage || !strings.Contains(rep.Plan.Engine.Found, "multi-stage engine is not enabled") {
				t.Errorf("plan engine %+v, want none, saying it is not enabled", rep.Plan.Engine)
			}
			for _, q := range rep.Plan.Queries {
				if sqltext.MultiStage(q) {
					t.Errorf("multi-stage probe left in the plan: %s", q)
				}
			}
			if n := b.mse.Load(); n != 1 {
				t.Errorf("the broker saw %d multi-stage queries, want the detection alone", n)
			}
			if len(rec.dropped) != 0 {
				t.Errorf("dropped %v: queries never sent are not dropped", rec.dropped)
			}
		})
	}
}

func TestSchemaShapesOnBothEnginesWhenTheBrokerHasMultiStage(t *testing.T) {
	b := &engineBroker{mseServed: true}
	rep, rec := runEngine(t, b, schemaCatalog{}, Settings{MinIterations: 50}, 5*time.Second)
	rec.mu.Lock()
	for _, e := range rec.events {
		if e.Step == event.StepProbe && e.MultiStage != sqltext.MultiStage(e.SQL) {
			t.Errorf("event MultiStage %v for %s", e.MultiStage, e.SQL)
		}
	}
	rec.mu.Unlock()
	if rep.Outcome != OutcomeWarm {
		t.Fatalf("outcome %s (%v), want warm", rep.Outcome, rep.Err)
	}
	names := strings.Join(rep.Plan.Shapes, ",")
	for _, want := range []string{"agg_metrics", "group_by_1", "mse_agg_metrics", "mse_window", "mse_join"} {
		if !strings.Contains(names, want) {
			t.Errorf("plan shapes %s: missing %s", names, want)
		}
	}
	if strings.Contains(names, ShapeLimit1) {
		t.Errorf("plan shapes %s: a LIMIT 1 probe where schemas were known", names)
	}
	if !rep.Plan.Engine.MultiStage || b.mse.Load() < 2 || b.sse.Load() == 0 {
		t.Errorf("engine %+v, broker saw %d multi-stage and %d single-stage queries", rep.Plan.Engine, b.mse.Load(), b.sse.Load())
	}
}

func TestNoMultiStageProbesWithoutTheEngine(t *testing.T) {
	for _, c := range []struct {
		name string
		b    *engineBroker
		mode EngineMode
	}{
		{"auto, single-stage broker", &engineBroker{}, EngineAuto},
		{"off", &engineBroker{mseServed: true}, EngineOff},
	} {
		t.Run(c.name, func(t *testing.T) {
			rep, _ := runEngine(t, c.b, schemaCatalog{}, Settings{MinIterations: 20, MultiStage: c.mode}, 5*time.Second)
			if rep.Outcome != OutcomeWarm {
				t.Fatalf("outcome %s (%v): a broker without the engine must still warm", rep.Outcome, rep.Err)
			}
			for _, q := range rep.Plan.Queries {
				if sqltext.MultiStage(q) {
					t.Errorf("multi-stage probe planned: %s", q)
				}
			}
			if c.mode == EngineOff && c.b.mse.Load() != 0 {
				t.Errorf("off: the broker saw %d multi-stage queries", c.b.mse.Load())
			}
		})
	}
}

// Single-stage successes alone never make a plan with multi-stage probes warm:
// each engine must reach its share of the floor.
func TestFloorSplitsBetweenEngines(t *testing.T) {
	b := &engineBroker{mseServed: true}
	rep, _ := runEngine(t, b, schemaCatalog{}, Settings{MinIterations: 40, MultiStage: EngineOn}, 5*time.Second)
	if rep.Outcome != OutcomeWarm {
		t.Fatalf("outcome %s, want warm", rep.Outcome)
	}
	// Now the multi-stage engine is listed (on) but fails every probe after planning.
	b2 := &engineBroker{mseFails: true}
	rep2, _ := runEngine(t, b2, schemaCatalog{}, Settings{MinIterations: 40, MultiStage: EngineOn}, 1500*time.Millisecond)
	if rep2.Outcome != OutcomeBudgetExpired {
		t.Fatalf("outcome %s with %d successes, all single-stage: want budget_expired", rep2.Outcome, rep2.Succeeded)
	}
	if rep2.Succeeded < 40 {
		t.Errorf("only %d successes (%d failed): the single-stage share alone should have passed the floor count", rep2.Succeeded, rep2.Failed)
	}
}

func TestSchemaErrorFallsBackToLimit1(t *testing.T) {
	rep, _ := runEngine(t, &engineBroker{}, schemaCatalog{schemaErr: errors.New("controller: HTTP 503")},
		Settings{MinIterations: 10}, 5*time.Second)
	if rep.Outcome != OutcomeWarm {
		t.Fatalf("outcome %s, want warm", rep.Outcome)
	}
	for _, s := range rep.Plan.Shapes {
		if s != ShapeLimit1 {
			t.Errorf("shape %s planned without a schema", s)
		}
	}
	if why := rep.Plan.Fallbacks["orders_OFFLINE"]; !strings.Contains(why, "HTTP 503") {
		t.Errorf("fallback reason %q, want the schema error", why)
	}
}

func TestLimit1ModeIgnoresSchemas(t *testing.T) {
	rep, _ := runEngine(t, &engineBroker{mseServed: true}, schemaCatalog{}, Settings{MinIterations: 10, Shapes: ShapesLimit1}, 5*time.Second)
	if len(rep.Plan.Queries) != 2 || rep.Plan.Queries[0] != `SELECT * FROM "orders_OFFLINE" LIMIT 1` {
		t.Errorf("limit1 plan queries %q", rep.Plan.Queries)
	}
}

// A generated probe the broker cannot compile is dropped with its reason, as a
// custom query is, and the run warms on the rest.
func TestBadGeneratedShapesAreDropped(t *testing.T) {
	b := &engineBroker{mseBad: "error 150: SQLParsingError: no multi-stage here"}
	rep, rec := runEngine(t, b, schemaCatalog{}, Settings{MinIterations: 30, MultiStage: EngineOn}, 5*time.Second)
	if rep.Outcome != OutcomeWarm {
		t.Fatalf("outcome %s (%v), want warm on the single-stage shapes", rep.Outcome, rep.Err)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.dropped) == 0 {
		t.Fatal("no shape was dropped")
	}
	for sql, why := range rec.dropped {
		if !sqltext.MultiStage(sql) || !strings.Contains(why, "no multi-stage here") {
			t.Errorf("dropped %q for %q", sql, why)
		}
	}
	// Each bad shape is sent until its first answer, not for the whole run.
	if n := b.mse.Load(); n > int64(len(rec.dropped))*4+1 {
		t.Errorf("the broker saw %d multi-stage queries for %d dropped shapes", n, len(rec.dropped))
	}
}
