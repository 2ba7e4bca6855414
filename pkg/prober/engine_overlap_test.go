package prober

import (
	"context"
	"math"
	"sync"
	"testing"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/pkg/pinot"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/prober/judge"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/sqltext"
)

// clockedBroker answers the engine's detection probe after detectDelay, like a
// cold multi-stage planner, and notes when the first single-stage probe left and
// when the detection probe answered.
type clockedBroker struct {
	*engineBroker
	start       time.Time
	detectDelay time.Duration

	mu             sync.Mutex
	firstSSE       time.Duration
	engineAnswered time.Duration
}

func (b *clockedBroker) Query(ctx context.Context, q pinot.Query) pinot.Result {
	sent := time.Since(b.start)
	b.mu.Lock()
	if !sqltext.MultiStage(q.SQL) && q.SQL != NoScatterSQL && b.firstSSE == 0 {
		b.firstSSE = sent
	}
	b.mu.Unlock()
	if q.SQL == MultiStageSQL {
		select {
		case <-time.After(b.detectDelay):
		case <-ctx.Done():
			return pinot.Result{Class: pinot.Transient, Message: "probe timed out"}
		}
	}
	res := b.engineBroker.Query(ctx, q)
	if q.SQL == MultiStageSQL {
		b.mu.Lock()
		b.engineAnswered = time.Since(b.start)
		b.mu.Unlock()
	}
	return res
}

func runClocked(t *testing.T, eb *engineBroker, s Settings, budget time.Duration) (Report, *recorder, *clockedBroker) {
	t.Helper()
	b := &clockedBroker{engineBroker: eb, start: time.Now(), detectDelay: 300 * time.Millisecond}
	rec := &recorder{}
	s.Concurrency = 2
	p := &Prober{Broker: b, Catalog: schemaCatalog{}, Settings: s, Observer: rec}
	return p.Run(context.Background(), time.Now().Add(budget)), rec, b
}

// A cold multi-stage engine takes seconds to answer its first query; the
// single-stage probes start as soon as the plan is made, and the multi-stage
// lane opens when the engine answers.
func TestSingleStageProbesDoNotWaitForTheEngine(t *testing.T) {
	eb := &engineBroker{mseServed: true}
	rep, rec, b := runClocked(t, eb, Settings{MinIterations: 40, NoScatterProbes: 4}, 5*time.Second)
	if rep.Outcome != OutcomeWarm {
		t.Fatalf("outcome %s (%v), want warm", rep.Outcome, rep.Err)
	}
	b.mu.Lock()
	first, answered := b.firstSSE, b.engineAnswered
	b.mu.Unlock()
	if first == 0 || answered == 0 || first >= answered {
		t.Errorf("first single-stage probe at %v, the engine answered at %v: the probes waited for it", first, answered)
	}
	if !rep.Plan.Engine.MultiStage || eb.mse.Load() < 2 {
		t.Errorf("engine %+v, %d multi-stage queries: want the engine found and probed", rep.Plan.Engine, eb.mse.Load())
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.plans) != 1 {
		t.Errorf("%d plans reported, want 1", len(rec.plans))
	}
	// The observer heard the floor's split by the plan's queries: both engines
	// have a share, the multi-stage one rounded up, and together they are the floor.
	mse := 0
	for _, q := range rec.plans[0].Queries {
		if sqltext.MultiStage(q) {
			mse++
		}
	}
	want := int64(math.Ceil(40 * float64(mse) / float64(len(rec.plans[0].Queries))))
	if n := len(rec.floors); n == 0 || rec.floors[n-1] != [2]int64{want, 40 - want} || mse == 0 {
		t.Errorf("floors told %v, want last [%d %d] (%d of %d queries multi-stage)", rec.floors, want, 40-want, mse, len(rec.plans[0].Queries))
	}
}

// A broker without the engine that answers the detection probe slowly: the run
// cannot end warm before it knows (the multi-stage share of the floor holds it),
// then goes on without multi-stage probes, reports the plan without them, and
// drops none (they were never sent).
func TestSlowBrokerWithoutTheEngineKeepsItsSingleStageProbes(t *testing.T) {
	eb := &engineBroker{}
	rep, rec, b := runClocked(t, eb, Settings{MinIterations: 20}, 5*time.Second)
	if rep.Outcome != OutcomeWarm {
		t.Fatalf("outcome %s (%v), want warm", rep.Outcome, rep.Err)
	}
	b.mu.Lock()
	first, answered := b.firstSSE, b.engineAnswered
	b.mu.Unlock()
	if first >= answered {
		t.Errorf("first single-stage probe at %v, the engine answered at %v", first, answered)
	}
	if n := eb.mse.Load(); n != 1 {
		t.Errorf("the broker saw %d multi-stage queries, want only the detection probe", n)
	}
	for _, q := range rep.Plan.Queries {
		if sqltext.MultiStage(q) {
			t.Errorf("the report's plan keeps a multi-stage probe: %s", q)
		}
	}
	if rep.Plan.Engine.MultiStage || len(rep.Plan.Queries) == 0 {
		t.Errorf("report plan engine %+v with %d queries", rep.Plan.Engine, len(rep.Plan.Queries))
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.dropped) != 0 {
		t.Errorf("dropped %v: queries never sent are not dropped by the broker", rec.dropped)
	}
	if n := len(rec.plans); n != 2 || rec.plans[n-1].Engine.MultiStage || len(rec.plans[n-1].Queries) != len(rep.Plan.Queries) {
		t.Errorf("plans reported: %d; want the first, then the one without multi-stage probes", n)
	}
	// The floor was split while the engine was unknown, then given wholly to the
	// single-stage engine.
	if n := len(rec.floors); n < 2 || rec.floors[0][0] == 0 || rec.floors[n-1] != [2]int64{0, 20} {
		t.Errorf("floors told %v, want a multi-stage share first and [0 20] last", rec.floors)
	}
}

// A default run on a broker whose multi-stage engine answers 5 ms slower than
// its single-stage one ends warm by the converged exit long before forty
// multi-stage probes per shape (which the per-shape rule needed, and which the
// 15 s budget could not give on the study's broker).
func TestConvergedRunWithBothEnginesNeedsNoFortyPerMultiStageShape(t *testing.T) {
	b := &engineBroker{mseServed: true, mseDelay: 5 * time.Millisecond}
	rep, _ := runEngine(t, b, schemaCatalog{}, Settings{MinIterations: 300, Exit: judge.ExitConverged, MultiStage: EngineOn}, 30*time.Second)
	if rep.Outcome != OutcomeWarm {
		t.Fatalf("outcome %s (%s), want warm", rep.Outcome, rep.Reason)
	}
	shapes := map[string]bool{}
	for i, q := range rep.Plan.Queries {
		if sqltext.MultiStage(q) {
			shapes[rep.Plan.ShapeOf(i)] = true
		}
	}
	perShape := int64(4 * judge.DefaultConvergeWindow * len(shapes))
	if len(shapes) < 5 || b.mse.Load() >= perShape {
		t.Fatalf("%d multi-stage probes over %d multi-stage shapes; want fewer than the per-shape rule's %d", b.mse.Load(), len(shapes), perShape)
	}
}
