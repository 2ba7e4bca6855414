package report

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/pkg/gatehttp"
)

// TestStatusDocumentMasksLiterals: /status shows the queries, the dropped ones
// too, with their literals as ?; Snapshot (the supervisor's own view) keeps
// them as sent. (The broker's words come masked from pkg/pinot.)
func TestStatusDocumentMasksLiterals(t *testing.T) {
	q1 := `SELECT COUNT(*) FROM "events_OFFLINE" WHERE REGEXP_LIKE("category", '^Quokka-c') AND "ts" BETWEEN 1796119200000 AND 1796119740000 LIMIT 10`
	q2 := `SELECT "city", COUNT(*) FROM "events_OFFLINE" WHERE "city" IN ('Zanzibar-0', 'it''s here', 'ab') GROUP BY "city" LIMIT 10`
	board := NewStatusBoard(true, 10, time.Second, time.Now)
	board.Update(func(s *Status) {
		s.Queries = []string{q1, q2}
		s.Outcome = "budget_expired"
		s.DroppedQueries = []Dropped{{SQL: q1, Shape: "regexp_like", Reason: "error 150: SQLParsingError: Caught exception while parsing query: SELECT COUNT(*) FROM ?"}}
	})
	doc, err := json.Marshal(board.Document(gatehttp.NewGate(nil))(false))
	if err != nil {
		t.Fatal(err)
	}
	text := string(doc)
	for _, v := range []string{"Quokka", "Zanzibar", "it's here", "it''s here", "'ab'", "1796119"} {
		if strings.Contains(text, v) {
			t.Errorf("/status keeps %q:\n%s", v, text)
		}
	}
	for _, want := range []string{
		`REGEXP_LIKE(\"category\", ?) AND \"ts\" BETWEEN ? AND ? LIMIT 10`, // the shape stays readable, LIMIT too
		`\"city\" IN (?, ?, ?) GROUP BY`,
		`1 query dropped (regexp_like: error 150`,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("/status lacks %q:\n%s", want, text)
		}
	}
	if s := board.Snapshot(gatehttp.NewGate(nil)); s.Queries[0] != q1 || s.DroppedQueries[0].SQL != q1 {
		t.Errorf("Snapshot changed: %q, %q", s.Queries[0], s.DroppedQueries[0].SQL)
	}
}
