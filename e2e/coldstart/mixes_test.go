package coldstart

import (
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/warmup-sidecar/warmup-sidecar/pkg/sqltext"
)

// namedTemplates are the named mixes' templates, to check their weights.
var namedTemplates = map[string]func(string) []template{
	MixDashboard: dashboardTemplates,
	MixAPI:       apiTemplates,
	MixMSE:       mseTemplates,
	MixReduce:    reduceTemplates,
}

func TestNamedMixesAndAnUnknownName(t *testing.T) {
	for _, name := range MixNames {
		m, err := NamedMix(name, "bench_events")
		if err != nil || len(m) == 0 {
			t.Errorf("NamedMix(%q) = %d queries, %v", name, len(m), err)
		}
	}
	if _, err := NamedMix("nope", "t"); err == nil || err.Error() != `mix "nope": want one of builtin, dashboard, api, mse, reduce` {
		t.Errorf("unknown mix: err = %v", err)
	}
}

var (
	cteName    = regexp.MustCompile(`(?i)\bWITH\s+(\w+)\s+AS\s*\(`)
	tsBound    = regexp.MustCompile(`\bts (>=|<) (\d+)`)
	strLiteral = regexp.MustCompile(`'([^']*)'`)
)

// Every query of every mix is one well-formed statement over the mix's table: quotes and
// parentheses balanced, SET only as the multi-stage prefix, filters on values the table
// holds, ts ranges inside its data.
func TestMixQueriesAreWellFormedPinotSQL(t *testing.T) {
	known := map[string]bool{"hour": true, "day": true} // DATETRUNC units
	for _, v := range slices.Concat(BenchData.Countries, BenchData.Devices, BenchData.EventTypes) {
		known[v] = true
	}
	lastTs := BenchData.EpochMs + int64(BenchData.Events)*1000
	for _, name := range MixNames {
		m, _ := NamedMix(name, "bench_events")
		for _, q := range m {
			where := name + "/" + q.Name + " draw " + strconv.Itoa(q.Draw)
			stmts, err := sqltext.Split(q.SQL)
			if err != nil || len(stmts) != 1 || stmts[0] != q.SQL {
				t.Errorf("%s: splits into %q (%v), want the one statement", where, stmts, err)
				continue
			}
			if err := balancedParens(q.SQL); err != nil {
				t.Errorf("%s: %v: %s", where, err, q.SQL)
			}
			body, mse := strings.CutPrefix(q.SQL, "SET useMultistageEngine=true; ")
			if mse != (name == MixMSE) {
				t.Errorf("%s: multi-stage prefix %v, want it exactly on the mse mix: %s", where, mse, q.SQL)
			}
			if !strings.HasPrefix(body, "SELECT ") && !strings.HasPrefix(body, "WITH ") || strings.Contains(body, "SET ") {
				t.Errorf("%s: want one SELECT or WITH query after the prefix: %s", where, q.SQL)
			}
			allowed := []string{"bench_events"}
			for _, c := range cteName.FindAllStringSubmatch(body, -1) {
				allowed = append(allowed, c[1])
			}
			for _, tbl := range sqltext.Tables(body) {
				if !slices.Contains(allowed, tbl) {
					t.Errorf("%s: reads table %q, want only bench_events: %s", where, tbl, q.SQL)
				}
			}
			if top := topLevel(body); (strings.Contains(top, "GROUP BY") || strings.Contains(top, "ORDER BY")) && !strings.Contains(top, " LIMIT ") {
				t.Errorf("%s: the answer is grouped or ordered rows without a LIMIT: %s", where, q.SQL)
			}
			for _, lit := range strLiteral.FindAllStringSubmatch(body, -1) {
				if !known[lit[1]] {
					t.Errorf("%s: literal %q is no value of bench_events: %s", where, lit[0], q.SQL)
				}
			}
			var from, to int64
			for _, b := range tsBound.FindAllStringSubmatch(body, -1) {
				v, _ := strconv.ParseInt(b[2], 10, 64)
				if v < BenchData.EpochMs || v > lastTs {
					t.Errorf("%s: ts bound %d outside the data [%d, %d]: %s", where, v, BenchData.EpochMs, lastTs, q.SQL)
				}
				if b[1] == ">=" {
					from = v
				} else {
					to = v
				}
			}
			if from > 0 && to <= from {
				t.Errorf("%s: empty ts range [%d, %d): %s", where, from, to, q.SQL)
			}
		}
	}
}

// balancedParens checks ( and ) outside quotes.
func balancedParens(sql string) error {
	depth := 0
	var quote byte
	for i := 0; i < len(sql); i++ {
		c := sql[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0 // a doubled quote closes and reopens: still balanced
			}
		case c == '\'' || c == '"':
			quote = c
		case c == '(':
			depth++
		case c == ')':
			if depth--; depth < 0 {
				return errParen("a ) with no ( before it")
			}
		}
	}
	switch {
	case quote != 0:
		return errParen("an unclosed quote")
	case depth != 0:
		return errParen(strconv.Itoa(depth) + " unclosed (")
	}
	return nil
}

// topLevel is sql without anything inside parentheses (quotes are not looked at: the mixes
// hold no parenthesis inside a literal, which balancedParens would not mind).
func topLevel(sql string) string {
	var b strings.Builder
	depth := 0
	for _, c := range sql {
		switch {
		case c == '(':
			depth++
		case c == ')':
			depth--
		case depth == 0:
			b.WriteRune(c)
		}
	}
	return b.String()
}

type errParen string

func (e errParen) Error() string { return string(e) }

func TestBalancedParensCatchesBadSQL(t *testing.T) {
	for _, bad := range []string{"SELECT (a FROM t", "SELECT a) FROM t", "SELECT 'a FROM t", "SELECT COUNT(*)) FROM t"} {
		if balancedParens(bad) == nil {
			t.Errorf("%q passed", bad)
		}
	}
	if err := balancedParens("SELECT COUNT(*) FROM t WHERE x IN ('(', ')')"); err != nil {
		t.Errorf("parentheses inside quotes: %v", err)
	}
}

// A named mix holds each template weight × mixRounds times, and every round of the mix (one
// run of the summed weights) holds each template exactly weight times: the weights hold over
// any stretch of the load, not only over the whole mix.
func TestNamedMixWeights(t *testing.T) {
	for name, templates := range namedTemplates {
		ts := templates("bench_events")
		m, _ := NamedMix(name, "bench_events")
		sum := 0
		weight := map[string]int{}
		for _, tp := range ts {
			if tp.weight < 1 || weight[tp.name] != 0 {
				t.Errorf("%s: template %s weight %d (or a duplicate name)", name, tp.name, tp.weight)
			}
			weight[tp.name] = tp.weight
			sum += tp.weight
		}
		if len(m) != sum*mixRounds {
			t.Fatalf("%s: %d queries, want %d weights × %d rounds", name, len(m), sum, mixRounds)
		}
		for r := range mixRounds {
			got := map[string]int{}
			for _, q := range m[r*sum : (r+1)*sum] {
				got[q.Name]++
			}
			if !reflect.DeepEqual(got, weight) {
				t.Fatalf("%s round %d: counts %v, want the weights %v", name, r, got, weight)
			}
		}
		if shapes := m.Shapes(); len(shapes) != len(ts) {
			t.Errorf("%s: %d shapes, want one per template (%d)", name, len(shapes), len(ts))
		}
	}
}

// Parameters are a pure function of (mix, template, draw): two builds agree, a shorter build
// is a prefix of a longer one, and the draws of a template do differ.
func TestNamedMixParametersAreDeterministic(t *testing.T) {
	for name, templates := range namedTemplates {
		a, _ := NamedMix(name, "bench_events")
		b, _ := NamedMix(name, "bench_events")
		if !reflect.DeepEqual(a, b) {
			t.Errorf("%s: two builds differ", name)
		}
		short := buildMix(name, 2, templates("bench_events"))
		if !reflect.DeepEqual(short, a[:len(short)]) {
			t.Errorf("%s: a 2-round build is not the start of the full mix", name)
		}
		distinct := map[string]map[string]bool{}
		for _, q := range a {
			if distinct[q.Name] == nil {
				distinct[q.Name] = map[string]bool{}
			}
			distinct[q.Name][q.SQL] = true
		}
		for shape, sqls := range distinct {
			if len(sqls) < 2 {
				t.Errorf("%s/%s: every draw is the same query: the parameters do not vary", name, shape)
			}
		}
	}
	// The literals themselves are part of a study's method: a change here makes new studies
	// incomparable with old ones, so it must be a deliberate one.
	if got, want := APIMix("bench_events")[0].SQL,
		"SELECT event_id, user_id, event_type, device, amount, ts FROM bench_events WHERE event_id IN (970742, 237790, 579062, 221187, 242498) LIMIT 10"; got != want {
		t.Errorf("first api query changed:\n got %s\nwant %s", got, want)
	}
}

func TestShapesAreTheFirstDraws(t *testing.T) {
	m := Mix{{Name: "a", SQL: "A0"}, {Name: "a", SQL: "A1", Draw: 1}, {Name: "b", SQL: "B0"}, {Name: "b", SQL: "B1", Draw: 1}}
	if got := m.Shapes(); !slices.Equal(got, []string{"A0", "B0"}) {
		t.Errorf("Shapes = %q", got)
	}
	// The built-in mix and a queries file are all draw 0: every query is its own shape.
	if got := DefaultMix("t").Shapes(); len(got) != 8 {
		t.Errorf("built-in mix: %d shapes, want all 8 queries", len(got))
	}
}

// The queries files shipped for the rollout study (e2e/testdata/mixes, ROLLOUT_QUERIES_FILE)
// parse, name every query, and read only the bed's bench_events table: the bed loads no other.
func TestShippedQueriesFilesReadTheBenchTable(t *testing.T) {
	files, err := filepath.Glob("../testdata/mixes/*.queries")
	if err != nil || len(files) == 0 {
		t.Fatalf("no queries files in e2e/testdata/mixes (%v)", err)
	}
	unnamed := regexp.MustCompile(`^q\d+$`) // ParseMix's name for a query without one
	for _, f := range files {
		m, err := LoadMix(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range m {
			if unnamed.MatchString(q.Name) {
				t.Errorf("%s: %q has no name of its own", f, q.SQL)
			}
			stmts, err := sqltext.Split(q.SQL)
			if err != nil {
				t.Fatalf("%s: %s: %v", f, q.Name, err)
			}
			for _, tbl := range sqltext.Tables(stmts[len(stmts)-1]) {
				if tbl != "bench_events" {
					t.Errorf("%s: %s reads %q, want only bench_events", f, q.Name, tbl)
				}
			}
		}
	}
}
