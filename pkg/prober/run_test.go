package prober

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/internal/fakepinot"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/pinot"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/prober/event"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/prober/plan"
)

func TestRunReachesFloorOverCoverTables(t *testing.T) {
	p, b, _, rec := cluster(t, Settings{MinIterations: 40, Concurrency: 4})
	rep := p.Run(context.Background(), time.Now().Add(10*time.Second))
	if rep.Outcome != OutcomeWarm {
		t.Fatalf("outcome = %s (err %v), want warm", rep.Outcome, rep.Err)
	}
	if rep.Succeeded < 40 || rep.Succeeded > 40+3 {
		t.Errorf("succeeded = %d, want the floor 40 plus at most one round's overshoot", rep.Succeeded)
	}
	// The cover needs clicks (server 2), events (servers 2, 3) and orders (server 1):
	// events first (2 new servers), then orders; clicks adds nothing.
	want := []string{
		`SELECT * FROM "events_OFFLINE" LIMIT 1`,
		`SELECT * FROM "events_REALTIME" LIMIT 1`,
		`SELECT * FROM "orders_OFFLINE" LIMIT 1`,
	}
	if got := strings.Join(rep.Plan.Queries, "|"); got != strings.Join(want, "|") {
		t.Fatalf("queries = %q, want %q", rep.Plan.Queries, want)
	}
	// Round-robin spreads probes evenly over every leg.
	for _, q := range want {
		if n := b.QueriesOf(q); n < 13 || n > 15 {
			t.Errorf("%s probed %d times, want ~14 (round-robin over 3 legs)", q, n)
		}
	}
	if len(rec.plans) != 1 || len(rep.Plan.Coverage.Uncovered) != 0 {
		t.Errorf("plans = %d, uncovered = %v; want one plan covering all", len(rec.plans), rep.Plan.Coverage.Uncovered)
	}
}

func TestRunProbesCarryTimeoutAndClientQueryID(t *testing.T) {
	p, b, _, _ := cluster(t, Settings{MinIterations: 1, ProbeTimeout: 2 * time.Second, RunID: "r1"})
	rep := p.Run(context.Background(), time.Now().Add(10*time.Second))
	if rep.Outcome != OutcomeWarm {
		t.Fatalf("outcome %s", rep.Outcome)
	}
	opts := b.LastQueryOptions()
	if !strings.Contains(opts, "timeoutMs=") || !strings.Contains(opts, "clientQueryId="+pinot.ProbeIDPrefix+"r1-") {
		t.Fatalf("queryOptions = %q, want timeoutMs and clientQueryId with the probe prefix", opts)
	}
}

func TestRunNoScatterStepComesFirstAndDoesNotCount(t *testing.T) {
	p, b, _, rec := cluster(t, Settings{MinIterations: 5, NoScatterProbes: 10, Concurrency: 3})
	rep := p.Run(context.Background(), time.Now().Add(10*time.Second))
	if rep.Outcome != OutcomeWarm {
		t.Fatalf("outcome %s", rep.Outcome)
	}
	if n := b.QueriesOf(NoScatterSQL); n != 10 {
		t.Errorf("no-scatter probes = %d, want 10", n)
	}
	if rep.Succeeded < 5 || rep.Succeeded > 7 {
		t.Errorf("floor probes = %d, want 5..7: no-scatter probes must not count", rep.Succeeded)
	}
	if rec.events[0].Step != event.StepNoScatter {
		t.Errorf("first probe step = %s, want no_scatter", rec.events[0].Step)
	}
}

func TestRunNoScatterStopsAtFirstFailure(t *testing.T) {
	p, b, _, _ := cluster(t, Settings{MinIterations: 1, NoScatterProbes: 50})
	b.SetAnswer(func(sql string) (int, string) {
		if sql == NoScatterSQL {
			return 200, fakepinot.Error(150, "SQLParsingError", "literal-only queries unsupported")
		}
		return 200, fakepinot.OK(1)
	})
	rep := p.Run(context.Background(), time.Now().Add(5*time.Second))
	if rep.Outcome != OutcomeWarm || b.QueriesOf(NoScatterSQL) != 1 {
		t.Fatalf("outcome %s, no-scatter probes %d; want warm after one failed no-scatter probe", rep.Outcome, b.QueriesOf(NoScatterSQL))
	}
}

func TestRunBudgetExpiresOnSlowBrokerWithoutBlocking(t *testing.T) {
	p, b, _, _ := cluster(t, Settings{MinIterations: 1000, Concurrency: 4, ProbeTimeout: 10 * time.Second})
	b.SetDelay(time.Hour) // never answers within the budget
	start := time.Now()
	rep := p.Run(context.Background(), start.Add(700*time.Millisecond))
	took := time.Since(start)
	if rep.Outcome != OutcomeBudgetExpired {
		t.Fatalf("outcome = %s, want budget_expired", rep.Outcome)
	}
	if took > 700*time.Millisecond+500*time.Millisecond {
		t.Fatalf("run took %s past a 700ms budget: stragglers were not cancelled", took)
	}
	if rep.Succeeded != 0 || rep.Failed == 0 {
		t.Errorf("succeeded/failed = %d/%d, want 0 and the cancelled probes counted as failed", rep.Succeeded, rep.Failed)
	}
}

func TestRunCustomQueriesDropBadOnesWithBrokerReason(t *testing.T) {
	good1 := `SELECT COUNT(*) FROM orders`
	good2 := `SELECT * FROM "events_OFFLINE" LIMIT 1`
	bad := `SELECT nosuchcolumn FROM orders`
	p, b, _, rec := cluster(t, Settings{MinIterations: 30, Concurrency: 2, Queries: []string{good1, bad, good2}})
	b.SetAnswer(func(sql string) (int, string) {
		if sql == bad {
			return 200, fakepinot.Error(710, "QueryValidationError", "Unknown columnName 'nosuchcolumn' found in the query")
		}
		return 200, fakepinot.OK(1)
	})
	rep := p.Run(context.Background(), time.Now().Add(10*time.Second))
	if rep.Outcome != OutcomeWarm {
		t.Fatalf("outcome = %s (%v), want warm", rep.Outcome, rep.Err)
	}
	if reason := rec.dropped[bad]; !strings.Contains(reason, "Unknown columnName 'nosuchcolumn'") {
		t.Fatalf("drop reason = %q, want the broker's message", reason)
	}
	if n := b.QueriesOf(bad); n != 2 {
		t.Errorf("bad query ran %d times, want 2 (its first round × concurrency, then dropped)", n)
	}
	// Every round runs all live queries × concurrency.
	if n1, n2 := b.QueriesOf(good1), b.QueriesOf(good2); n1 != n2 || n1 < 15 {
		t.Errorf("good queries ran %d and %d times, want equal and ≥ 15", n1, n2)
	}
}

func TestRunAllCustomQueriesBadFails(t *testing.T) {
	p, b, _, _ := cluster(t, Settings{MinIterations: 10, Queries: []string{"SELEC 1 FROM x", "SELECT * FROM nope"}})
	b.SetAnswer(func(sql string) (int, string) {
		if strings.HasPrefix(sql, "SELEC ") {
			return 200, fakepinot.Error(150, "SQLParsingError", "Encountered \"SELEC\"")
		}
		return 200, fakepinot.Error(190, "TableDoesNotExistError", "Unknown table: nope")
	})
	rep := p.Run(context.Background(), time.Now().Add(5*time.Second))
	if rep.Outcome != OutcomeFailed || rep.Err != ErrAllQueriesDropped {
		t.Fatalf("outcome = %s, err = %v; want failed with ErrAllQueriesDropped", rep.Outcome, rep.Err)
	}
}

func TestRunCustomQueryThatLaterFailsIsKept(t *testing.T) {
	q := "SELECT COUNT(*) FROM orders"
	p, b, _, rec := cluster(t, Settings{MinIterations: 20, Queries: []string{q}})
	calls := 0
	b.SetAnswer(func(string) (int, string) {
		calls++
		if calls%2 == 0 { // only ever serialised: concurrency 1
			return 200, fakepinot.Error(190, "TableDoesNotExistError", "Unknown table: orders")
		}
		return 200, fakepinot.OK(1)
	})
	rep := p.Run(context.Background(), time.Now().Add(10*time.Second))
	if rep.Outcome != OutcomeWarm || len(rec.dropped) != 0 {
		t.Fatalf("outcome %s, dropped %v: a query whose first answer worked must stay", rep.Outcome, rec.dropped)
	}
	if rep.Failed == 0 {
		t.Errorf("later bad answers must count as failed probes")
	}
}

func TestRunWaitsForRoutableTableWithinBudget(t *testing.T) {
	p, b, _, rec := cluster(t, Settings{MinIterations: 5, Tables: []string{"orders"}})
	b.SetRouting(map[string]map[string][]string{}) // nothing routable yet
	go func() {
		time.Sleep(400 * time.Millisecond)
		b.SetRouting(fakepinot.ThreeServers())
	}()
	rep := p.Run(context.Background(), time.Now().Add(5*time.Second))
	if rep.Outcome != OutcomeWarm {
		t.Fatalf("outcome = %s (%v), want warm once the table became routable", rep.Outcome, rep.Err)
	}
	if len(rec.retries) == 0 {
		t.Errorf("no plan retries were reported while nothing was routable")
	}
}

func TestRunNoRoutableTableUntilBudgetExpires(t *testing.T) {
	p, b, _, rec := cluster(t, Settings{MinIterations: 5, Tables: []string{"orders"}})
	b.SetRouting(map[string]map[string][]string{})
	start := time.Now()
	rep := p.Run(context.Background(), start.Add(600*time.Millisecond))
	if rep.Outcome != OutcomeBudgetExpired || rep.Err == nil || !strings.Contains(rep.Err.Error(), "no routable table") {
		t.Fatalf("outcome %s err %v; want budget_expired naming the missing routing", rep.Outcome, rep.Err)
	}
	// The engine was asked beside the planning; what it answered is still told.
	if len(rec.engines) != 1 {
		t.Errorf("engine told %d times (%v), want once even with no plan", len(rec.engines), rec.engines)
	}
	if time.Since(start) > 1100*time.Millisecond {
		t.Fatalf("planning retries outlived the budget: %s", time.Since(start))
	}
}

func TestRunExplicitTablesDropUnroutableAndCoverAgainstAll(t *testing.T) {
	p, _, _, _ := cluster(t, Settings{MinIterations: 3, Tables: []string{"orders", "nosuch"}})
	rep := p.Run(context.Background(), time.Now().Add(5*time.Second))
	if rep.Outcome != OutcomeWarm {
		t.Fatalf("outcome %s", rep.Outcome)
	}
	if len(rep.Plan.Dropped) != 1 || rep.Plan.Dropped[0] != "nosuch" {
		t.Errorf("dropped = %v, want [nosuch]", rep.Plan.Dropped)
	}
	// orders is on server 1 only; the broker also routes servers 2 and 3.
	if got := strings.Join(rep.Plan.Coverage.Uncovered, ","); got != "Server_10.0.0.2_8098,Server_10.0.0.3_8098" {
		t.Errorf("uncovered = %s, want servers 2 and 3", got)
	}
}

func TestRunMaxTablesOneLeavesServersUncovered(t *testing.T) {
	p, _, _, _ := cluster(t, Settings{MinIterations: 2, MaxTables: 1})
	rep := p.Run(context.Background(), time.Now().Add(5*time.Second))
	if got := len(rep.Plan.Coverage.Uncovered); got != 1 || rep.Plan.Coverage.Uncovered[0] != "Server_10.0.0.1_8098" {
		t.Fatalf("uncovered = %v, want only server 1 (events covers 2 and 3)", rep.Plan.Coverage.Uncovered)
	}
}

func TestRunTransientFailuresBackOffAndCount(t *testing.T) {
	p, b, _, _ := cluster(t, Settings{MinIterations: 1000, Concurrency: 2})
	b.SetAnswer(func(string) (int, string) { return 429, `{"error":"quota"}` })
	rep := p.Run(context.Background(), time.Now().Add(time.Second))
	if rep.Outcome != OutcomeBudgetExpired || rep.Succeeded != 0 {
		t.Fatalf("outcome %s succeeded %d", rep.Outcome, rep.Succeeded)
	}
	// Backoff (20ms doubling to 1s) bounds a second of 429s to a few rounds,
	// where spinning would send thousands.
	if rep.Failed == 0 || rep.Failed > 40 {
		t.Fatalf("failed probes = %d in 1s of instant 429s, want a backed-off handful", rep.Failed)
	}
}

func TestRunPartialAnswersAreNotSuccesses(t *testing.T) {
	p, b, _, _ := cluster(t, Settings{MinIterations: 5})
	b.SetAnswer(func(string) (int, string) { return 200, fakepinot.Partial(2, 1) })
	rep := p.Run(context.Background(), time.Now().Add(500*time.Millisecond))
	if rep.Outcome != OutcomeBudgetExpired || rep.Succeeded != 0 {
		t.Fatalf("outcome %s succeeded %d: partial answers must not count", rep.Outcome, rep.Succeeded)
	}
}

func TestRunPanicBecomesFailed(t *testing.T) {
	p, _, _, _ := cluster(t, Settings{MinIterations: 5})
	p.Observer = panicky{}
	rep := p.Run(context.Background(), time.Now().Add(time.Second))
	if rep.Outcome != OutcomeFailed || rep.Err == nil || !strings.Contains(rep.Err.Error(), "panicked") {
		t.Fatalf("outcome %s err %v, want failed after a panic", rep.Outcome, rep.Err)
	}
}

type panicky struct{}

func (panicky) Observe(e event.Event) {
	if e.Kind == event.KindPlanned {
		panic("observer bug")
	}
}

func TestRunFloorZeroIsWarmAtOnce(t *testing.T) {
	p, b, _, _ := cluster(t, Settings{MinIterations: 0})
	rep := p.Run(context.Background(), time.Now().Add(time.Second))
	if rep.Outcome != OutcomeWarm || b.Queries() != 0 {
		t.Fatalf("outcome %s queries %d, want warm with no probe", rep.Outcome, b.Queries())
	}
}

func TestExplicitTablesAreCutAtMaxTablesInOrder(t *testing.T) {
	p, _, _, _ := cluster(t, Settings{MinIterations: 2, MaxTables: 1, Tables: []string{"orders", "clicks"}})
	rep := p.Run(context.Background(), time.Now().Add(5*time.Second))
	if got := plan.TableNames(rep.Plan.Tables); len(got) != 1 || got[0] != "orders" {
		t.Fatalf("tables = %v, want [orders]", got)
	}
	if len(rep.Plan.Capped) != 1 || rep.Plan.Capped[0] != "clicks" {
		t.Errorf("capped = %v, want [clicks]", rep.Plan.Capped)
	}
	// orders is on server 1; clicks (server 2) and events (2, 3) are not probed.
	if n := len(rep.Plan.Coverage.Uncovered); n != 2 {
		t.Errorf("uncovered = %v, want servers 2 and 3", rep.Plan.Coverage.Uncovered)
	}
}

func TestPlanSurvivesAPanickingRoutingLookup(t *testing.T) {
	pl := plan.Planner{Catalog: panickyCatalog{}, Settings: plan.Settings{MaxTables: 5}}
	_, err := pl.Plan(context.Background())
	if err == nil || !strings.Contains(err.Error(), "panicked") {
		t.Fatalf("err = %v, want the panic as an error", err)
	}
}

type panickyCatalog struct{}

func (panickyCatalog) Tables(context.Context) ([]string, error) { return []string{"a", "b"}, nil }
func (panickyCatalog) RoutingTable(context.Context, string) (pinot.RoutingTable, error) {
	panic("routing bug")
}

func TestPlanDeadlineReportsTheRealCause(t *testing.T) {
	p, _, c, _ := cluster(t, Settings{MinIterations: 5})
	c.SetDown(true)
	rep := p.Run(context.Background(), time.Now().Add(400*time.Millisecond))
	if rep.Err == nil || !strings.HasPrefix(rep.Err.Error(), "budget ran out before a plan could be made: ") || !strings.Contains(rep.Err.Error(), "HTTP 503") {
		t.Fatalf("err = %v, want the budget's end with the controller's 503 as the cause", rep.Err)
	}
}
