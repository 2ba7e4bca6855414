//go:build e2e

package scenarios

import (
	"strings"
	"testing"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/e2e/cluster"
)

// Scenario 3: custom multi-query with one invalid query: it is dropped with the
// broker's own error text, the rest reach the floor.
func TestCustomQueriesDropTheInvalidOne(t *testing.T) {
	healthyBroker(t)
	bad := "SELEC COUNT(*) FROM " + cluster.TableBoth
	queries := strings.Join([]string{
		"SELECT COUNT(*) FROM " + cluster.TableBoth,
		bad,
		"SELECT MAX(id) FROM " + cluster.TableServer2 + " WHERE id > 10",
	}, "; ")
	p := startSidecar(t, env("WARMUP_QUERY="+queries, "WARMUP_MIN_ITERATIONS=300", "WARMUP_BUDGET=60s"))
	st := waitOutcome(t, p, 90*time.Second)
	if st.Outcome != "warm" {
		t.Fatalf("outcome %q; status %+v", st.Outcome, st)
	}
	if len(st.DroppedQueries) != 1 || st.DroppedQueries[0].SQL != bad {
		t.Fatalf("dropped = %+v, want only %q", st.DroppedQueries, bad)
	}
	reason := st.DroppedQueries[0].Reason
	// The broker's own words, not ours: Pinot's parse error names the bad token.
	if !strings.Contains(reason, "error 150") || !strings.Contains(reason, "SELEC") {
		t.Fatalf("drop reason %q lacks the broker's parse error", reason)
	}
	if len(p.Lines("custom query dropped: the broker cannot compile it")) != 1 {
		t.Errorf("want one log line for the dropped query")
	}
	t.Logf("dropped with the broker's reason: %s", reason)
}

// Scenario 5: an explicit WARMUP_TABLES list warms; an unknown table in it is
// dropped with a log line.
func TestExplicitTablesDropUnknownTable(t *testing.T) {
	healthyBroker(t)
	p := startSidecar(t, env(exitFloor, "WARMUP_TABLES="+cluster.TableServer1+",no_such_table,"+cluster.TableServer2,
		"WARMUP_MIN_ITERATIONS=200", "WARMUP_BUDGET=60s"))
	st := waitOutcome(t, p, 90*time.Second)
	if st.Outcome != "warm" {
		t.Fatalf("outcome %q", st.Outcome)
	}
	if strings.Join(st.Tables, ",") != cluster.TableServer1+","+cluster.TableServer2 {
		t.Errorf("tables = %v", st.Tables)
	}
	if len(st.DroppedTables) != 1 || st.DroppedTables[0] != "no_such_table" {
		t.Errorf("dropped tables = %v", st.DroppedTables)
	}
	found := false
	for _, l := range p.Lines("WARMUP_TABLES names a table this broker cannot route: dropped") {
		found = found || l["table"] == "no_such_table"
	}
	if !found {
		t.Errorf("no log line for the dropped table; logs:\n%s", p.Logs())
	}
}
