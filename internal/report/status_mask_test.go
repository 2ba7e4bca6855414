package report

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/pkg/gatehttp"
)

// TestStatusDocumentMasksLiterals: /status shows the queries with their literals
// as ?, and no message quoting them keeps them; Snapshot (the supervisor's own
// view) keeps them as sent.
func TestStatusDocumentMasksLiterals(t *testing.T) {
	q1 := `SELECT COUNT(*) FROM "events_OFFLINE" WHERE REGEXP_LIKE("category", '^Quokka-c') AND "ts" BETWEEN 1796119200000 AND 1796119740000 LIMIT 10`
	q2 := `SELECT "city", COUNT(*) FROM "events_OFFLINE" WHERE "city" IN ('Zanzibar-0', 'it''s here', 'ab') GROUP BY "city" LIMIT 10`
	board := NewStatusBoard(true, 10, time.Second, time.Now)
	board.Update(func(s *Status) {
		s.Queries = []string{q1, q2}
		s.Outcome = "budget_expired"
		s.DroppedQueries = []Dropped{{SQL: q1, Shape: "regexp_like", Reason: "error 150: SQLParsingError: Caught exception while parsing query: " + q1}}
		// A cut echo: the query is not whole, its values still are.
		s.LastError = `error 200: QueryExecutionError: cannot filter "city" on Zanzibar-0, it's here or 1796119740000 at line 1, column 38; ab`
		s.ShapeFallbacks = map[string]string{"clicks_REALTIME": "sampling: 'Zanzibar-0' is not a LONG"}
	})
	doc, err := json.Marshal(board.Document(gatehttp.NewGate(nil))(false))
	if err != nil {
		t.Fatal(err)
	}
	text := string(doc)
	for _, v := range []string{"Quokka", "Zanzibar", "it's here", "it''s here", "1796119"} {
		if strings.Contains(text, v) {
			t.Errorf("/status keeps %q:\n%s", v, text)
		}
	}
	for _, want := range []string{
		`REGEXP_LIKE(\"category\", ?) AND \"ts\" BETWEEN ? AND ? LIMIT 10`, // the shape stays readable, LIMIT too
		`Caught exception while parsing query: SELECT COUNT(*)`,
		`at line 1, column 38; ab`, // short figures and values stay
		`1 query dropped (regexp_like: error 150`,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("/status lacks %q:\n%s", want, text)
		}
	}
	if s := board.Snapshot(gatehttp.NewGate(nil)); s.Queries[0] != q1 || !strings.Contains(s.LastError, "Zanzibar-0") {
		t.Errorf("Snapshot changed: %q, %q", s.Queries[0], s.LastError)
	}
}
