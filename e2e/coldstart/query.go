package coldstart

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
)

// Query is one query of the mix: Name labels its shape in per-shape figures.
type Query struct {
	Name string `json:"name"`
	SQL  string `json:"sql"`
	// Draw numbers the parameter draws of a named mix's shape (0: its first); queries read
	// from a file and the built-in mix are each their own shape, all draw 0.
	Draw int `json:"draw,omitempty"`
}

// Mix is the list of queries the load cycles through: arrival i sends Mix[i % len].
type Mix []Query

// At is the query for arrival i.
func (m Mix) At(i int) Query { return m[i%len(m)] }

// Shapes lists one statement per shape (every draw-0 query), e.g. to hand the mix's shapes
// to the sidecar as WARMUP_QUERY: the sidecar warms shapes, and later draws only change
// literals.
func (m Mix) Shapes() []string {
	var out []string
	for _, q := range m {
		if q.Draw == 0 {
			out = append(out, q.SQL)
		}
	}
	return out
}

// DefaultMix is a realistic read mix on the e2e benchmark table (e2e/testdata/tables/
// bench_events.*): a filtered selection, an aggregation, a group-by with order-by and a
// distinct count, each in two filter variants so the broker compiles several plans. Every
// filter hits an inverted-index column, so the servers' share stays moderate and the
// broker's own serve path is a real part of each query's cost (that is what goes cold).
func DefaultMix(table string) Mix {
	t := table
	return Mix{
		{Name: "selection", SQL: fmt.Sprintf(`SELECT event_id, user_id, amount, ts FROM %s WHERE country = 'DE' AND device = 'ios' ORDER BY ts DESC LIMIT 20`, t)},
		{Name: "aggregation", SQL: fmt.Sprintf(`SELECT COUNT(*), SUM(amount), AVG(latency_ms), MAX(latency_ms) FROM %s WHERE event_type = 'purchase'`, t)},
		{Name: "groupby", SQL: fmt.Sprintf(`SELECT country, COUNT(*), SUM(amount) FROM %s WHERE device = 'android' GROUP BY country ORDER BY SUM(amount) DESC LIMIT 10`, t)},
		{Name: "distinctcount", SQL: fmt.Sprintf(`SELECT DISTINCTCOUNT(user_id) FROM %s WHERE country = 'US'`, t)},
		{Name: "selection", SQL: fmt.Sprintf(`SELECT event_id, country, latency_ms FROM %s WHERE event_type = 'click' AND latency_ms > 900 LIMIT 50`, t)},
		{Name: "aggregation", SQL: fmt.Sprintf(`SELECT MIN(amount), MAX(amount), SUM(latency_ms) FROM %s WHERE country IN ('FR', 'JP') AND device = 'web'`, t)},
		{Name: "groupby", SQL: fmt.Sprintf(`SELECT event_type, device, COUNT(*) FROM %s WHERE country = 'BR' GROUP BY event_type, device ORDER BY COUNT(*) DESC LIMIT 10`, t)},
		{Name: "distinctcount", SQL: fmt.Sprintf(`SELECT country, DISTINCTCOUNT(device) FROM %s WHERE event_type = 'view' GROUP BY country ORDER BY country LIMIT 20`, t)},
	}
}

var namedLine = regexp.MustCompile(`^([A-Za-z][A-Za-z0-9_-]*):\s+(.+)$`)

// ParseMix reads one query per line. Blank lines and lines starting with # or -- are
// skipped; "name: SELECT ..." names a query (otherwise q1, q2, ...); a trailing ; is dropped.
func ParseMix(r io.Reader) (Mix, error) {
	var m Mix
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, "--") {
			continue
		}
		q := Query{Name: fmt.Sprintf("q%d", len(m)+1), SQL: line}
		if sub := namedLine.FindStringSubmatch(line); sub != nil && !strings.EqualFold(sub[1], "select") {
			q.Name, q.SQL = sub[1], sub[2]
		}
		q.SQL = strings.TrimSpace(strings.TrimSuffix(q.SQL, ";"))
		if q.SQL == "" {
			return nil, fmt.Errorf("line %d: empty query after %q", n, q.Name+":")
		}
		m = append(m, q)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading queries: %w", err)
	}
	if len(m) == 0 {
		return nil, fmt.Errorf("no queries: every line was blank or a comment")
	}
	return m, nil
}

// LoadMix reads a queries file (see ParseMix).
func LoadMix(path string) (Mix, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("queries file: %w", err)
	}
	defer f.Close()
	m, err := ParseMix(f)
	if err != nil {
		return nil, fmt.Errorf("queries file %s: %w", path, err)
	}
	return m, nil
}
