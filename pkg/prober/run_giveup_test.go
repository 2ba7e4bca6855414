package prober

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/pkg/pinot"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/prober/judge"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/sqltext"
)

// scriptBroker answers each query through answer, counting them per SQL; a
// multi-stage success carries stageStats.
type scriptBroker struct {
	answer func(ctx context.Context, sql string, n int) pinot.Result
	mu     sync.Mutex
	seen   map[string]int
}

func (b *scriptBroker) Query(ctx context.Context, q pinot.Query) pinot.Result {
	b.mu.Lock()
	if b.seen == nil {
		b.seen = map[string]int{}
	}
	n := b.seen[q.SQL]
	b.seen[q.SQL]++
	b.mu.Unlock()
	if res := b.answer(ctx, q.SQL, n); res.Class != pinot.Success {
		return res
	}
	return pinot.Result{Class: pinot.Success, HTTPStatus: 200, MultiStage: sqltext.MultiStage(q.SQL)}
}

func (b *scriptBroker) count(match func(string) bool) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := 0
	for q, c := range b.seen {
		if match(q) {
			n += c
		}
	}
	return n
}

var answerOK = pinot.Result{Class: pinot.Success}

// executionError is Pinot's answer to a query that compiles and fails running.
func executionError() pinot.Result {
	return pinot.Result{Class: pinot.Transient, HTTPStatus: 200, ErrorCode: 200,
		Message: "error 200: QueryExecutionError: java.lang.ArithmeticException"}
}

func runScript(t *testing.T, b *scriptBroker, s Settings, budget time.Duration) (Report, *recorder) {
	t.Helper()
	rec := &recorder{}
	s.Exit = judge.ExitConverged
	if s.Concurrency == 0 {
		s.Concurrency = 4
	}
	p := &Prober{Broker: b, Catalog: schemaCatalog{}, Settings: s, Observer: rec}
	return p.Run(context.Background(), time.Now().Add(budget)), rec
}

// A multi-stage shape that fails at execution on every table (error 200) held
// the whole pool, so the run never converged. It is dropped with its last
// error, once, and the run ends warm on the evidence of the shapes that answer.
func TestAShapeThatNeverSucceedsIsDropped(t *testing.T) {
	window := func(sql string) bool { return strings.Contains(sql, "ROW_NUMBER()") }
	b := &scriptBroker{answer: func(_ context.Context, sql string, _ int) pinot.Result {
		if window(sql) {
			return executionError()
		}
		return answerOK
	}}
	start := time.Now()
	rep, rec := runScript(t, b, Settings{MinIterations: 60}, 10*time.Second)
	if rep.Outcome != OutcomeWarm {
		t.Fatalf("outcome %s (%s), want warm on the shapes that answer", rep.Outcome, rep.Reason)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("warm after %s of a 10 s budget: by the budget, not the evidence", took)
	}
	droppedOnBothTables(t, rec, window, "no success in 3 probes", "QueryExecutionError")
	if n := b.count(window); n > 2*3+4 { // three answers each, and the workers' probes already in flight
		t.Errorf("the broker saw %d window probes: kept after it was dropped", n)
	}
}

// A shape that keeps timing out (a big table) is dropped after its timeouts
// (three, or two once a third of the budget passed since its first), and the
// run ends warm on the others' evidence, not by the budget.
func TestAShapeThatKeepsTimingOutIsDropped(t *testing.T) {
	slow := func(sql string) bool { return strings.Contains(sql, "PERCENTILE(") && !sqltext.MultiStage(sql) }
	b := &scriptBroker{answer: func(ctx context.Context, sql string, _ int) pinot.Result {
		if slow(sql) {
			<-ctx.Done()
			return pinot.Result{Class: pinot.Transient, Message: "probe timed out"}
		}
		return answerOK
	}}
	rep, rec := runScript(t, b, Settings{MinIterations: 60, ProbeTimeout: 2 * time.Second}, 9*time.Second)
	if rep.Outcome != OutcomeWarm {
		t.Fatalf("outcome %s (%s), want warm once the slow shape is dropped", rep.Outcome, rep.Reason)
	}
	droppedOnBothTables(t, rec, slow, "no success in", "probe timed out")
}

// droppedOnBothTables: the run dropped exactly the shape's two queries (one per
// table), each with a reason holding every want.
func droppedOnBothTables(t *testing.T, rec *recorder, shape func(string) bool, wants ...string) {
	t.Helper()
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.dropped) != 2 {
		t.Fatalf("dropped %v, want the shape on both tables", rec.dropped)
	}
	for sql, why := range rec.dropped {
		for _, w := range wants {
			if !shape(sql) || !strings.Contains(why, w) {
				t.Errorf("dropped %q for %q, want %q", sql, why, w)
			}
		}
	}
}

// A cold query that fails its first answers and then succeeds is kept: only a
// query that never succeeds is given up.
func TestAColdQueryThatSucceedsLaterIsKept(t *testing.T) {
	b := &scriptBroker{answer: func(_ context.Context, sql string, n int) pinot.Result {
		if strings.Contains(sql, "ROW_NUMBER()") && n < 2 {
			return executionError()
		}
		return answerOK
	}}
	rep, rec := runScript(t, b, Settings{MinIterations: 60}, 10*time.Second)
	if rep.Outcome != OutcomeWarm {
		t.Fatalf("outcome %s (%s), want warm", rep.Outcome, rep.Reason)
	}
	if len(rec.dropped) != 0 {
		t.Errorf("dropped %v: two cold failures are not a verdict", rec.dropped)
	}
}

// Every generated shape failing (schema shapes this broker cannot run) left no
// shape to converge: the run falls back to the LIMIT 1 probe of each leg, says
// so in its plan, and ends warm on that evidence.
func TestEveryShapeDroppedFallsBackToLimit1(t *testing.T) {
	limit1 := func(sql string) bool {
		return strings.HasPrefix(sql, "SELECT * FROM ") && strings.HasSuffix(sql, " LIMIT 1")
	}
	b := &scriptBroker{answer: func(_ context.Context, sql string, _ int) pinot.Result {
		if limit1(sql) {
			return answerOK
		}
		return executionError()
	}}
	rep, rec := runScript(t, b, Settings{MinIterations: 30, MultiStage: EngineOff}, 10*time.Second)
	if rep.Outcome != OutcomeWarm {
		t.Fatalf("outcome %s (%v, %s), want warm on the LIMIT 1 fallback", rep.Outcome, rep.Err, rep.Reason)
	}
	if len(rep.Plan.Queries) != 2 || !limit1(rep.Plan.Queries[0]) || !limit1(rep.Plan.Queries[1]) {
		t.Errorf("final plan %q, want the two legs' LIMIT 1 probes", rep.Plan.Queries)
	}
	if why := rep.Plan.Fallbacks["orders_OFFLINE"]; !strings.Contains(why, "every probe shape was dropped") {
		t.Errorf("fallback reason %q", why)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if last := rec.plans[len(rec.plans)-1]; len(last.Queries) != 2 {
		t.Errorf("the fallback plan was not reported: last plan %q", last.Queries)
	}
	if !strings.Contains(rep.Reason, "latency flat on limit1") {
		t.Errorf("reason %q", rep.Reason)
	}
}

// A custom query that always fails at execution is given up as a generated
// shape is: the run ends warm on the operator's other query.
func TestACustomQueryThatNeverSucceedsIsDropped(t *testing.T) {
	good, failing := "SELECT COUNT(*) FROM orders", "SELECT 1/0 FROM orders"
	b := &scriptBroker{answer: func(_ context.Context, sql string, _ int) pinot.Result {
		if sql == failing {
			return executionError()
		}
		return answerOK
	}}
	rep, rec := runScript(t, b, Settings{MinIterations: 20, Queries: []string{good, failing}, Concurrency: 2}, 5*time.Second)
	if rep.Outcome != OutcomeWarm {
		t.Fatalf("outcome %s (%v, %s), want warm on the query that answers", rep.Outcome, rep.Err, rep.Reason)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if why := rec.dropped[failing]; !strings.Contains(why, "no success in") || len(rec.dropped) != 1 {
		t.Errorf("dropped %v", rec.dropped)
	}
}
