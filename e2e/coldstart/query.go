package coldstart

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
)

// Query is one shape of the mix: Name labels it in per-shape figures.
type Query struct {
	Name string `json:"name"`
	SQL  string `json:"sql"`
}

// Mix is the list of queries the load cycles through: arrival i sends Mix[i % len].
type Mix []Query

// At is the query for arrival i.
func (m Mix) At(i int) Query { return m[i%len(m)] }

// SQL lists the statements, e.g. to hand them to the sidecar as WARMUP_QUERY.
func (m Mix) SQL() []string {
	out := make([]string, len(m))
	for i, q := range m {
		out[i] = q.SQL
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
		{"selection", fmt.Sprintf(`SELECT event_id, user_id, amount, ts FROM %s WHERE country = 'DE' AND device = 'ios' ORDER BY ts DESC LIMIT 20`, t)},
		{"aggregation", fmt.Sprintf(`SELECT COUNT(*), SUM(amount), AVG(latency_ms), MAX(latency_ms) FROM %s WHERE event_type = 'purchase'`, t)},
		{"groupby", fmt.Sprintf(`SELECT country, COUNT(*), SUM(amount) FROM %s WHERE device = 'android' GROUP BY country ORDER BY SUM(amount) DESC LIMIT 10`, t)},
		{"distinctcount", fmt.Sprintf(`SELECT DISTINCTCOUNT(user_id) FROM %s WHERE country = 'US'`, t)},
		{"selection", fmt.Sprintf(`SELECT event_id, country, latency_ms FROM %s WHERE event_type = 'click' AND latency_ms > 900 LIMIT 50`, t)},
		{"aggregation", fmt.Sprintf(`SELECT MIN(amount), MAX(amount), SUM(latency_ms) FROM %s WHERE country IN ('FR', 'JP') AND device = 'web'`, t)},
		{"groupby", fmt.Sprintf(`SELECT event_type, device, COUNT(*) FROM %s WHERE country = 'BR' GROUP BY event_type, device ORDER BY COUNT(*) DESC LIMIT 10`, t)},
		{"distinctcount", fmt.Sprintf(`SELECT country, DISTINCTCOUNT(device) FROM %s WHERE event_type = 'view' GROUP BY country ORDER BY country LIMIT 20`, t)},
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
