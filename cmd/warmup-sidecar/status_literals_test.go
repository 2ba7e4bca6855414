package main

import (
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/warmup-sidecar/warmup-sidecar/internal/fakepinot"
)

// sampleSQL matches the sample query and names its table.
var sampleSQL = regexp.MustCompile(`^SELECT \* FROM "([^"]+)" LIMIT (\d+)$`)

// runSampledValues runs the sidecar against a fake cluster whose sample rows
// carry distinctive values (each "<column>_" value prefixed as prefix says)
// and whose broker answers every other query with answer (nil: OK). It
// returns /status and the logs once the sidecar is ready.
func runSampledValues(t *testing.T, prefix map[string]string, answer func(sql string) (int, string)) (status, logs string) {
	t.Helper()
	b := fakepinot.NewBroker(fakepinot.ThreeServers())
	defer b.Close()
	c := fakepinot.NewController(fakepinot.ThreeServerTables()...)
	defer c.Close()
	b.SetAnswer(func(sql string) (int, string) {
		if m := sampleSQL.FindStringSubmatch(sql); m != nil {
			rows := fakepinot.RowsAnswer(fakepinot.DefaultSchema(fakepinot.RawName(m[1])), 10, 1)
			for col, p := range prefix {
				rows = strings.ReplaceAll(rows, `"`+col+`_`, `"`+p+col+`_`)
			}
			return 200, rows
		}
		if answer != nil {
			return answer(sql)
		}
		return 200, fakepinot.OK(1)
	})
	s := startSidecar(t, "WARMUP_BROKER_URL="+b.URL(), "WARMUP_CONTROLLER_URL="+c.URL(), "WARMUP_MAX_TABLES=1",
		"WARMUP_MIN_ITERATIONS=200", "WARMUP_EXIT=floor", "WARMUP_MULTISTAGE=off", "WARMUP_BUDGET=10s")
	s.waitFor(t, 15*time.Second, "/readyz 200", func() bool { code, _ := httpGet(s.url("/readyz")); return code == 200 })
	_, status = httpGet(s.url("/status"))
	_ = s.stop(3 * time.Second)
	return status, s.logs.String()
}

// TestStatusMasksSampledLiterals: the schema shapes filter on values sampled from
// the tables' rows; /status, on a port anyone who reaches the pod can read, shows
// the queries with each literal as ?, and the broker's words quoting a query (a
// parse error echoing it, in last_error, dropped_queries and decided) likewise.
// The WARN line of the dropped query keeps the SQL as sent (logs are the
// operator's, behind the cluster's access control).
func TestStatusMasksSampledLiterals(t *testing.T) {
	// Distinctive values: any of them in /status is a sampled value shown.
	status, logs := runSampledValues(t, map[string]string{"city": "Zanzibar-", "category": "Quokka-", "tags": "Wombat-"}, func(sql string) (int, string) {
		if strings.Contains(sql, "REGEXP_LIKE") {
			// Pinot's parse error quotes the query it could not parse.
			return 200, fakepinot.Error(150, "SQLParsingError", "Caught exception while parsing query: "+sql)
		}
		return 200, fakepinot.OK(1)
	})
	if !strings.Contains(logs, "Zanzibar") && !strings.Contains(logs, "Quokka") {
		t.Fatalf("no generated query used a sampled value (the test shows nothing):\n%s", tailStr(logs, 3000))
	}
	for _, v := range []string{"Zanzibar", "Quokka", "Wombat", "1796119"} { // 1796119…: the sampled ts, epoch ms of 2026-12-01
		if strings.Contains(status, v) {
			t.Errorf("/status shows the sampled value %q:\n%s", v, status)
		}
	}
	for _, want := range []string{`\"category\" = ?`, "REGEXP_LIKE", "Caught exception while parsing query: SELECT", "regexp_like"} {
		if !strings.Contains(status, want) {
			t.Errorf("/status lacks %q (the queries' shapes must stay readable):\n%s", want, status)
		}
	}
	if line := lineWith(logs, "generated probe dropped"); !strings.Contains(line, "Quokka") && !strings.Contains(line, "Zanzibar") && !strings.Contains(line, "Wombat") {
		t.Errorf("the dropped-query log line lost the SQL as sent: %s", line)
	}
}

// TestStatusMasksLiteralsFoldedOrCut: the broker's words reach /status as one
// line of at most 200 characters with white space folded. A parse error (150)
// that echoes a query whose sampled value holds runs of spaces shows that value
// folded, and one whose echo runs past the 200th character cuts a value in two:
// neither the folded value nor the cut one's start may reach /status.
func TestStatusMasksLiteralsFoldedOrCut(t *testing.T) {
	status, _ := runSampledValues(t, map[string]string{"city": "jane.doe.private@example.com ", "category": "Jane  Q.  Customer "}, func(sql string) (int, string) {
		msg := "Caught exception while parsing query: " + sql
		switch {
		case strings.Contains(sql, "jane.doe"):
			// Text before the query (as a stack trace's first lines would be) puts
			// the value's opening quote at the 190th character of the folded
			// message ("SQLParsingError: ~~~ Caught…"): the cut falls inside it.
			folded := strings.Join(strings.Fields("SQLParsingError:\n"+msg), " ")
			q := utf8.RuneCountInString(folded[:strings.Index(folded, "'jane.doe")])
			msg = strings.Repeat("~", max(189-q, 1)) + " " + msg
		case !strings.Contains(sql, "Jane"):
			return 200, fakepinot.OK(1)
		}
		return 200, fakepinot.Error(150, "SQLParsingError", msg)
	})
	// Both echoes reached /status: the cut one (its filler) and a folded one.
	for _, want := range []string{"~~~ Caught exception while parsing query: SELECT", "error 150: SQLParsingError: Caught exception while parsing query: SELECT"} {
		if !strings.Contains(status, want) {
			t.Fatalf("/status lacks %q (the test shows nothing):\n%s", want, status)
		}
	}
	for _, v := range []string{"jane.", "private", "example.com", "Jane Q", "Jane  Q", "Customer"} {
		if strings.Contains(status, v) {
			t.Errorf("/status shows %q of a sampled value:\n%s", v, status)
		}
	}
}
