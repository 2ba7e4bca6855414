package main

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/internal/fakepinot"
)

// sampleSQL matches the sample query and names its table.
var sampleSQL = regexp.MustCompile(`^SELECT \* FROM "([^"]+)" LIMIT (\d+)$`)

// TestStatusMasksSampledLiterals: the schema shapes filter on values sampled from
// the tables' rows; /status, on a port anyone who reaches the pod can read, shows
// the queries with each literal as ?, and the broker's words quoting a query (a
// parse error echoing it, in last_error, dropped_queries and decided) likewise.
// The WARN line of the dropped query keeps the SQL as sent (logs are the
// operator's, behind the cluster's access control).
func TestStatusMasksSampledLiterals(t *testing.T) {
	b := fakepinot.NewBroker(fakepinot.ThreeServers())
	defer b.Close()
	c := fakepinot.NewController(fakepinot.ThreeServerTables()...)
	defer c.Close()
	b.SetAnswer(func(sql string) (int, string) {
		if m := sampleSQL.FindStringSubmatch(sql); m != nil {
			rows := fakepinot.RowsAnswer(fakepinot.DefaultSchema(fakepinot.RawName(m[1])), 10, 1)
			// Distinctive values: any of them in /status is a sampled value shown.
			rows = strings.ReplaceAll(rows, `"city_`, `"Zanzibar-city_`)
			rows = strings.ReplaceAll(rows, `"category_`, `"Quokka-category_`)
			rows = strings.ReplaceAll(rows, `"tags_`, `"Wombat-tags_`)
			return 200, rows
		}
		if strings.Contains(sql, "REGEXP_LIKE") {
			// Pinot's parse error quotes the query it could not parse.
			return 200, fakepinot.Error(150, "SQLParsingError", "Caught exception while parsing query: "+sql)
		}
		return 200, fakepinot.OK(1)
	})
	s := startSidecar(t, "WARMUP_BROKER_URL="+b.URL(), "WARMUP_CONTROLLER_URL="+c.URL(), "WARMUP_MAX_TABLES=1",
		"WARMUP_MIN_ITERATIONS=200", "WARMUP_EXIT=floor", "WARMUP_MULTISTAGE=off", "WARMUP_BUDGET=10s")
	s.waitFor(t, 15*time.Second, "/readyz 200", func() bool { code, _ := httpGet(s.url("/readyz")); return code == 200 })
	_, status := httpGet(s.url("/status"))
	_ = s.stop(3 * time.Second)
	logs := s.logs.String()
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
