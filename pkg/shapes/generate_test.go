package shapes

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/warmup-sidecar/warmup-sidecar/pkg/pinot"
)

func schemaOf(t testing.TB, js string) pinot.Schema {
	t.Helper()
	var s pinot.Schema
	if err := json.Unmarshal([]byte(js), &s); err != nil {
		t.Fatalf("schema %s: %v", js, err)
	}
	return s
}

// rowsOf decodes a broker answer's resultTable the way pinot.Sample does.
func rowsOf(t testing.TB, columns []string, rows string) []pinot.Row {
	t.Helper()
	cols, _ := json.Marshal(columns)
	out, err := pinot.DecodeRows([]byte(`{"resultTable":{"dataSchema":{"columnNames":` + string(cols) + `},"rows":` + rows + `}}`))
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func byName(shapes []Shape) map[string]Shape {
	m := make(map[string]Shape, len(shapes))
	for _, s := range shapes {
		m[s.Name] = s
	}
	return m
}

func names(shapes []Shape) []string {
	var out []string
	for _, s := range shapes {
		out = append(out, s.Name)
	}
	return out
}

func benchEvents(t testing.TB) pinot.Schema {
	t.Helper()
	b, err := os.ReadFile("../../e2e/testdata/tables/bench_events.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	return schemaOf(t, string(b))
}

var benchColumns = []string{"amount", "country", "device", "event_id", "event_type", "latency_ms", "ts", "user_id"}

const benchRows = `[[1.5,"US","ios",1,"click",12,1700000000000,7],
	[2.5,"DE","web",2,"view",30,1700000360000,7],
	[0.5,"US","ios",3,"click",9,1700000720000,8]]`

// The real benchmark schema with rows as the broker returns them: every shape,
// in order, with filters on values the rows hold.
func TestGenerateBenchEvents(t *testing.T) {
	s := benchEvents(t)
	got := Generate("bench_events_OFFLINE", s, rowsOf(t, benchColumns, benchRows), Options{})
	checkShapes(t, got, TableSchema{Table: "bench_events_OFFLINE", Schema: s})
	const from = `FROM "bench_events_OFFLINE" `
	const span = `WHERE "ts" BETWEEN 1700000000000 AND 1700000720000 `
	const and = `AND "ts" BETWEEN 1700000000000 AND 1700000720000 ` // narrow: every other filter reads the sample's span
	const bucket = `DATETRUNC('DAY', "ts", 'MILLISECONDS')`
	want := []Shape{
		{Name: "filter_order_time", SQL: `SELECT "ts", "country", "device", "latency_ms", "amount" ` + from + `WHERE "country" = 'US' ` + and + `ORDER BY "ts" DESC LIMIT 10`},
		{Name: "agg_metrics", SQL: `SELECT COUNT(*), SUM("latency_ms"), MIN("latency_ms"), MAX("latency_ms"), AVG("latency_ms"), SUM("amount"), MAX("amount") ` + from + `WHERE "country" IN ('US', 'DE') ` + and + `LIMIT 10`},
		{Name: "group_by_1", SQL: `SELECT "country", COUNT(*), SUM("latency_ms") ` + from + span + `GROUP BY "country" ORDER BY COUNT(*) DESC LIMIT 10`},
		{Name: "group_by_2_having", SQL: `SELECT "country", "device", COUNT(*), SUM("latency_ms") ` + from + `WHERE "device" NOT IN ('ios') ` + and + `GROUP BY "country", "device" HAVING COUNT(*) > 0 ORDER BY COUNT(*) DESC LIMIT 10`},
		{Name: "distinct", SQL: `SELECT DISTINCT "country", "device" ` + from + span + `LIMIT 10`},
		{Name: "distinctcount", SQL: `SELECT DISTINCTCOUNT("country"), DISTINCTCOUNTHLL("device") ` + from + span + `LIMIT 10`},
		{Name: "percentile", SQL: `SELECT PERCENTILE("latency_ms", 95), PERCENTILETDIGEST("latency_ms", 99) ` + from + `WHERE "country" IN ('US', 'DE') ` + and + `LIMIT 10`},
		{Name: "time_bucket", SQL: `SELECT ` + bucket + `, COUNT(*) ` + from + span + `GROUP BY ` + bucket + ` ORDER BY ` + bucket + ` DESC LIMIT 10`},
		{Name: "regexp_like", SQL: `SELECT COUNT(*) ` + from + `WHERE REGEXP_LIKE("country", '^US') ` + and + `LIMIT 10`},
	}
	for i := range want {
		want[i].Tables = []string{"bench_events_OFFLINE"}
		want[i].Engine = SingleStage
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got:\n%s\nwant:\n%s", dump(got), dump(want))
	}
}

func dump(shapes []Shape) string {
	var b strings.Builder
	for _, s := range shapes {
		fmt.Fprintf(&b, "  %s %v %s %s\n", s.Name, s.Tables, s.Engine, s.SQL)
	}
	return b.String()
}

// Every Pinot data type: only the types a shape can use appear, each where it
// is valid.
func TestGenerateEveryDataType(t *testing.T) {
	s := schemaOf(t, `{"schemaName":"all",
		"dimensionFieldSpecs":[
			{"name":"i","dataType":"INT"},{"name":"l","dataType":"LONG"},{"name":"f","dataType":"FLOAT"},
			{"name":"d","dataType":"DOUBLE"},{"name":"bd","dataType":"BIG_DECIMAL"},{"name":"b","dataType":"BOOLEAN"},
			{"name":"tsd","dataType":"TIMESTAMP"},{"name":"s","dataType":"STRING"},
			{"name":"j","dataType":"JSON"},{"name":"by","dataType":"BYTES"}],
		"metricFieldSpecs":[
			{"name":"mi","dataType":"INT"},{"name":"md","dataType":"DOUBLE"},
			{"name":"mbd","dataType":"BIG_DECIMAL"},{"name":"mby","dataType":"BYTES"}],
		"dateTimeFieldSpecs":[{"name":"ts","dataType":"LONG","format":"1:MILLISECONDS:EPOCH","granularity":"1:MILLISECONDS"}],
		"complexFieldSpecs":[{"name":"m","dataType":"MAP","fieldType":"COMPLEX","childFieldSpecs":{
			"key":{"name":"key","dataType":"STRING","fieldType":"DIMENSION"},
			"value":{"name":"value","dataType":"INT","fieldType":"DIMENSION"}}}]}`)
	cols := []string{"b", "bd", "by", "d", "f", "i", "j", "l", "m", "mbd", "mby", "md", "mi", "s", "ts", "tsd"}
	rows := rowsOf(t, cols, `[
		[true,"1.50","deadbeef",2.5,"-Infinity",1,"{\"a\":1}",10,{"k":1},"3.25","00",1.5,4,"x",1700000000000,"2024-01-02 03:04:05.0"],
		[false,"2.50","cafe",3.5,1.25,2,"{}",11,{},"1.0",null,2.5,5,"y",1700000001000,"2024-01-03 03:04:05.0"]]`)
	all := TableSchema{Table: "all_OFFLINE", Schema: s}
	got := Generate(all.Table, s, rows, Options{MultiStage: true})
	checkShapes(t, got, all)
	for _, sh := range got {
		for _, never := range []string{`"j"`, `"by"`, `"m"`, `"mby"`, `"mbd"`} {
			if strings.Contains(sh.SQL, never) {
				t.Errorf("%s uses %s (JSON, BYTES, MAP or a BIG_DECIMAL metric): %s", sh.Name, never, sh.SQL)
			}
		}
	}
	m := byName(got)
	// BOOLEAN and STRING group first (tied, so schema order); the numeric
	// metrics are aggregated.
	if want := `GROUP BY "b", "s" HAVING`; !strings.Contains(m["group_by_2_having"].SQL, want) {
		t.Errorf("group_by_2_having: %s, want %s", m["group_by_2_having"].SQL, want)
	}
	for _, want := range []string{`SUM("mi")`, `AVG("mi")`, `SUM("md")`, `MAX("md")`} {
		if !strings.Contains(m["agg_metrics"].SQL, want) {
			t.Errorf("agg_metrics lacks %s: %s", want, m["agg_metrics"].SQL)
		}
	}
	if want := `PERCENTILE("mi", 95)`; !strings.Contains(m["percentile"].SQL, want) {
		t.Errorf("percentile: %s", m["percentile"].SQL)
	}
	if want := `WHERE "b" = true AND "ts" BETWEEN`; !strings.Contains(m["filter_order_time"].SQL, want) {
		t.Errorf("BOOLEAN literal: %s, want %s", m["filter_order_time"].SQL, want)
	}
	if want := `WHERE "b" IN (true, false)`; !strings.Contains(m["agg_metrics"].SQL, want) {
		t.Errorf("BOOLEAN literals: %s, want %s", m["agg_metrics"].SQL, want)
	}
}

// literal renders each type's values as the broker returns them, and refuses
// what is no literal of that type.
func TestLiteralPerType(t *testing.T) {
	long := strings.Repeat("x", maxLiteralBytes+1)
	cases := []struct {
		typ  string
		v    any
		want string // "" means refused
	}{
		{"INT", json.Number("42"), "42"},
		{"INT", json.Number("-7"), "-7"},
		{"LONG", json.Number("9007199254740993"), "9007199254740993"},
		{"INT", json.Number("1.5"), ""},
		{"INT", "12abc", ""},
		{"INT", nil, ""},
		{"INT", []any{json.Number("1")}, ""},
		{"FLOAT", "-Infinity", ""},
		{"DOUBLE", "NaN", ""},
		{"DOUBLE", json.Number("1.0E7"), "1.0E7"},
		{"BIG_DECIMAL", "123.4500", "123.4500"},
		{"BOOLEAN", true, "true"},
		{"BOOLEAN", false, "false"},
		{"BOOLEAN", json.Number("1"), ""},
		{"TIMESTAMP", "2024-01-02 03:04:05.0", "'2024-01-02 03:04:05.0'"},
		{"TIMESTAMP", json.Number("1700000000000"), "1700000000000"},
		{"STRING", "it's", "'it''s'"},
		{"STRING", "", "''"},
		{"STRING", json.Number("5"), ""},
		{"STRING", "a\nb", ""},
		{"STRING", "\xff", ""},
		{"STRING", long, ""},
		{"JSON", "{}", ""},
		{"BYTES", "deadbeef", ""},
		{"MAP", map[string]any{}, ""},
	}
	for _, c := range cases {
		got, ok := literal(column{name: "c", typ: c.typ, single: true}, c.v)
		if !ok {
			got = ""
		}
		if got != c.want {
			t.Errorf("%s %#v: %q, want %q", c.typ, c.v, got, c.want)
		}
	}
}

// Filters take real values: = the first, IN up to three distinct, BETWEEN the
// numeric (not lexicographic) range; nulls and non-finite values are skipped.
func TestFiltersComeFromSample(t *testing.T) {
	s := schemaOf(t, `{"dimensionFieldSpecs":[{"name":"c","dataType":"STRING"}],
		"metricFieldSpecs":[{"name":"v","dataType":"DOUBLE"}]}`)
	rows := rowsOf(t, []string{"c", "v"}, `[[null,"-Infinity"],["b",9],["a",100],["b",10],["c",9.5],["d",null]]`)
	tb := newTable("t", s, rows)
	for got, want := range map[string]string{
		tb.eqFilter():     `"c" = 'b'`,
		tb.inFilter():     `"c" IN ('b', 'a', 'c')`,
		tb.notInFilter():  `"c" NOT IN ('b')`,
		tb.rangeFilter():  `"v" BETWEEN 9 AND 100`,
		tb.regexpFilter(): `REGEXP_LIKE("c", '^b')`,
	} {
		if got != want {
			t.Errorf("%s, want %s", got, want)
		}
	}
}

func TestRegexpPrefixEscapes(t *testing.T) {
	c := column{name: "c", typ: "STRING", single: true}
	for in, want := range map[string]string{
		"a.b(c)*":         `^a\.b\(c\)\*`,
		"it's":            `^it's`,
		"abcdefghijkl":    `^abcdefgh`,
		"[x]{1}|y?+$^\\z": `^\[x\]\{1\}\|y`,
		"y?+$^\\z":        `^y\?\+\$\^\\z`,
		"日本語のテキストです":      `^日本語のテキスト`,
	} {
		tb := &table{sample: []pinot.Row{{"c": in}}}
		if got := tb.regexpPrefix(c); got != want {
			t.Errorf("%q: %s, want %s", in, got, want)
		}
	}
	tb := &table{sample: []pinot.Row{{"c": nil}, {"c": ""}}}
	if got := tb.regexpPrefix(c); got != "^." {
		t.Errorf("no value: %s, want ^.", got)
	}
	if got := pinot.QuoteString(`^it's`); got != `'^it''s'` {
		t.Errorf("QuoteString: %s", got)
	}
}

func TestMultiValueColumns(t *testing.T) {
	for _, c := range []struct {
		typ     string
		row     string
		want    []string
		notWant []string
	}{
		{"STRING", `[["a","b"],"x"]`, []string{`COUNTMV("tags")`, `DISTINCTCOUNTMV("tags")`}, []string{"SUMMV"}},
		{"INT", `[[1,2],"x"]`, []string{`COUNTMV("tags")`, `SUMMV("tags")`, `MAXMV("tags")`}, nil},
	} {
		t.Run(c.typ, func(t *testing.T) {
			s := schemaOf(t, `{"dimensionFieldSpecs":[{"name":"tags","dataType":"`+c.typ+`","singleValueField":false},
				{"name":"k","dataType":"STRING"}]}`)
			ts := TableSchema{Table: "mv_OFFLINE", Schema: s}
			got := Generate(ts.Table, s, rowsOf(t, []string{"tags", "k"}, "["+c.row+"]"), Options{})
			checkShapes(t, got, ts)
			mv, ok := byName(got)["agg_mv"]
			if !ok {
				t.Fatalf("no agg_mv in %v", names(got))
			}
			for _, w := range c.want {
				if !strings.Contains(mv.SQL, w) {
					t.Errorf("agg_mv lacks %s: %s", w, mv.SQL)
				}
			}
			for _, w := range c.notWant {
				if strings.Contains(mv.SQL, w) {
					t.Errorf("agg_mv has %s: %s", w, mv.SQL)
				}
			}
			// The MV column is only selected or MV-aggregated: never grouped,
			// filtered or fed to a single-value function.
			for _, sh := range got {
				var bad bool
				switch sh.Name {
				case "agg_mv":
					bad = strings.Count(sh.SQL, `"tags"`) != strings.Count(sh.SQL, `MV("tags")`)
				case "filter_order":
					_, after, _ := strings.Cut(sh.SQL, " FROM ")
					bad = strings.Contains(after, `"tags"`)
				default:
					bad = strings.Contains(sh.SQL, `"tags"`)
				}
				if bad {
					t.Errorf("%s uses the MV column outside MV functions: %s", sh.Name, sh.SQL)
				}
			}
		})
	}
}

func TestNoMetrics(t *testing.T) {
	s := schemaOf(t, `{"dimensionFieldSpecs":[{"name":"country","dataType":"STRING"},{"name":"n","dataType":"LONG"}],
		"dateTimeFieldSpecs":[{"name":"ts","dataType":"LONG","format":"1:MILLISECONDS:EPOCH","granularity":"1:MILLISECONDS"}]}`)
	ts := TableSchema{Table: "dims_OFFLINE", Schema: s}
	got := Generate(ts.Table, s, nil, Options{})
	checkShapes(t, got, ts)
	m := byName(got)
	if _, ok := m["agg_metrics"]; ok {
		t.Errorf("agg_metrics without metrics: %v", names(got))
	}
	if want := `SELECT COUNT(*), DISTINCTCOUNT("country") FROM`; !strings.HasPrefix(m["agg_count"].SQL, want) {
		t.Errorf("agg_count: %q, want prefix %q", m["agg_count"].SQL, want)
	}
	if want := `PERCENTILE("n", 95)`; !strings.Contains(m["percentile"].SQL, want) {
		t.Errorf("percentile over a numeric dimension: %s", m["percentile"].SQL)
	}
	for _, sh := range got {
		if strings.Contains(sh.SQL, "SUM(") || strings.Contains(sh.SQL, "AVG(") {
			t.Errorf("%s sums without a metric: %s", sh.Name, sh.SQL)
		}
	}
}

func TestNoTimeColumn(t *testing.T) {
	s := schemaOf(t, `{"dimensionFieldSpecs":[{"name":"country","dataType":"STRING"}],
		"metricFieldSpecs":[{"name":"amount","dataType":"DOUBLE"}]}`)
	ts := TableSchema{Table: "nt_OFFLINE", Schema: s}
	got := Generate(ts.Table, s, nil, Options{})
	checkShapes(t, got, ts)
	want := []string{"filter_order", "agg_metrics", "group_by_1", "group_by_1_having", "distinct", "distinctcount", "percentile", "regexp_like"}
	if !reflect.DeepEqual(names(got), want) {
		t.Errorf("names %v, want %v", names(got), want)
	}
	if sel := byName(got)["filter_order"].SQL; !strings.Contains(sel, `ORDER BY "country" DESC`) {
		t.Errorf("selection without time orders by another column: %s", sel)
	}
}

// The time bucket fits each way Pinot writes time: DATETRUNC over plain counts
// of a Java time unit, DATETIMECONVERT from the schema's format otherwise.
func TestTimeBucketPerFormat(t *testing.T) {
	const conv = `'1:MILLISECONDS:EPOCH', '1:DAYS')`
	cases := []struct {
		name   string
		schema string
		want   string // "" means no time_bucket shape
	}{
		{"epoch millis, colon", dt("LONG", "1:MILLISECONDS:EPOCH"), `DATETRUNC('DAY', "ts", 'MILLISECONDS')`},
		{"epoch seconds, pipe", dt("LONG", "EPOCH|SECONDS|1"), `DATETRUNC('DAY', "ts", 'SECONDS')`},
		{"epoch, pipe, unit left out", dt("LONG", "EPOCH"), `DATETRUNC('DAY', "ts", 'MILLISECONDS')`},
		{"epoch days as INT", dt("INT", "1:DAYS:EPOCH"), `DATETRUNC('DAY', "ts", 'DAYS')`},
		{"epoch in 5-minute units", dt("LONG", "5:MINUTES:EPOCH"), `DATETIMECONVERT("ts", '5:MINUTES:EPOCH', ` + conv},
		{"epoch in 5-minute units, pipe", dt("LONG", "EPOCH|MINUTES|5"), `DATETIMECONVERT("ts", 'EPOCH|MINUTES|5', ` + conv},
		{"epoch months", dt("INT", "1:MONTHS:EPOCH"), `DATETIMECONVERT("ts", '1:MONTHS:EPOCH', ` + conv},
		{"simple date, colon", dt("STRING", "1:DAYS:SIMPLE_DATE_FORMAT:yyyyMMdd"), `DATETIMECONVERT("ts", '1:DAYS:SIMPLE_DATE_FORMAT:yyyyMMdd', ` + conv},
		{"simple date as INT", dt("INT", "SIMPLE_DATE_FORMAT|yyyyMMdd"), `DATETIMECONVERT("ts", 'SIMPLE_DATE_FORMAT|yyyyMMdd', ` + conv},
		{"simple date with quotes and zone", dt("STRING", "SIMPLE_DATE_FORMAT|yyyy-MM-dd'T'HH:mm:ss|America/New_York"),
			`DATETIMECONVERT("ts", 'SIMPLE_DATE_FORMAT|yyyy-MM-dd''T''HH:mm:ss|America/New_York', ` + conv},
		{"TIMESTAMP type", dt("TIMESTAMP", "1:MILLISECONDS:TIMESTAMP"), `DATETRUNC('DAY', "ts")`},
		{"TIMESTAMP type, pipe", dt("TIMESTAMP", "TIMESTAMP"), `DATETRUNC('DAY', "ts")`},
		{"TIMESTAMP format on LONG", dt("LONG", "TIMESTAMP"), `DATETRUNC('DAY', "ts")`},
		{"unreadable format", dt("LONG", "NOPE"), ""},
		{"zero size", dt("LONG", "0:MILLISECONDS:EPOCH"), ""},
		{"legacy time, millis", `{"timeFieldSpec":{"incomingGranularitySpec":{"name":"ts","dataType":"LONG","timeType":"MILLISECONDS"}}}`,
			`DATETRUNC('DAY', "ts", 'MILLISECONDS')`},
		{"legacy time, outgoing spec is the column", `{"timeFieldSpec":{
			"incomingGranularitySpec":{"name":"in_ms","dataType":"LONG","timeType":"MILLISECONDS"},
			"outgoingGranularitySpec":{"name":"ts","dataType":"INT","timeType":"DAYS"}}}`,
			`DATETRUNC('DAY', "ts", 'DAYS')`},
		{"legacy time, simple date", `{"timeFieldSpec":{"incomingGranularitySpec":{"name":"ts","dataType":"STRING",
			"timeType":"DAYS","timeFormat":"SIMPLE_DATE_FORMAT:yyyyMMdd"}}}`,
			`DATETIMECONVERT("ts", '1:DAYS:SIMPLE_DATE_FORMAT:yyyyMMdd', ` + conv},
		{"legacy time, 15-minute units", `{"timeFieldSpec":{"incomingGranularitySpec":{"name":"ts","dataType":"LONG",
			"timeType":"MINUTES","timeUnitSize":15}}}`,
			`DATETIMECONVERT("ts", '15:MINUTES:EPOCH', ` + conv},
		{"multi-value date-time is skipped for the next", `{"dateTimeFieldSpecs":[
			{"name":"mvts","dataType":"LONG","singleValueField":false,"format":"1:MILLISECONDS:EPOCH","granularity":"1:MILLISECONDS"},
			{"name":"ts","dataType":"LONG","format":"1:SECONDS:EPOCH","granularity":"1:SECONDS"}]}`,
			`DATETRUNC('DAY', "ts", 'SECONDS')`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := schemaOf(t, c.schema)
			ts := TableSchema{Table: "t_OFFLINE", Schema: s}
			got := Generate(ts.Table, s, nil, Options{})
			checkShapes(t, got, ts)
			m := byName(got)
			if _, ok := m["filter_order_time"]; !ok {
				t.Errorf("no filter_order_time: %v", names(got))
			}
			tb, ok := m["time_bucket"]
			if c.want == "" {
				if ok {
					t.Errorf("time_bucket for an unreadable format: %s", tb.SQL)
				}
				return
			}
			if want := "SELECT " + c.want + ", COUNT(*) FROM"; !strings.HasPrefix(tb.SQL, want) {
				t.Errorf("time_bucket %q, want prefix %q", tb.SQL, want)
			}
		})
	}
}

// dt is a schema with one date-time column "ts".
func dt(typ, format string) string {
	f, _ := json.Marshal(format)
	return `{"dateTimeFieldSpecs":[{"name":"ts","dataType":"` + typ + `","format":` + string(f) + `,"granularity":"1:DAYS"}]}`
}

// Reserved words, mixed case and quotes in names stay names.
func TestQuotingOddNames(t *testing.T) {
	s := schemaOf(t, `{"dimensionFieldSpecs":[
			{"name":"select","dataType":"STRING"},{"name":"Mixed Case","dataType":"STRING"},
			{"name":"from","dataType":"STRING","singleValueField":false}],
		"metricFieldSpecs":[{"name":"it's","dataType":"DOUBLE"},{"name":"we\"ird","dataType":"LONG"}],
		"dateTimeFieldSpecs":[{"name":"timestamp","dataType":"TIMESTAMP","format":"TIMESTAMP","granularity":"1:DAYS"}]}`)
	rows := rowsOf(t, []string{"select", "Mixed Case", `we"ird`, "from", "it's", "timestamp"},
		`[["o'brien","Ab",1,["x"],1.5,"2024-01-02 03:04:05.0"],["o'neil","Ab",2,[],2.5,"2024-01-03 03:04:05.0"]]`)
	ts := TableSchema{Table: `odd"table_OFFLINE`, Schema: s}
	got := Generate(ts.Table, s, rows, Options{MultiStage: true})
	got = append(got, JoinShapes([]TableSchema{{Table: ts.Table, Schema: s, Sample: rows}})...)
	checkShapes(t, got, ts)
	all := dump(got)
	for _, want := range []string{
		`FROM "odd""table_OFFLINE"`, `"Mixed Case"`, `"select"`, `SUM("we""ird")`, `SUM("it's")`,
		`COUNTMV("from")`, `'o''brien'`, `ORDER BY "timestamp" DESC`,
		`"timestamp" BETWEEN '2024-01-02 03:04:05.0' AND '2024-01-03 03:04:05.0'`,
	} {
		if !strings.Contains(all, want) {
			t.Errorf("no %s in:\n%s", want, all)
		}
	}
}

// Names no SQL text should carry are left out; a schema left with no usable
// column gives nil (the caller keeps LIMIT 1).
func TestUnusableSchemas(t *testing.T) {
	for name, js := range map[string]string{
		"empty":     `{}`,
		"no fields": `{"schemaName":"x"}`,
		"only unusable types": `{"dimensionFieldSpecs":[{"name":"j","dataType":"JSON"},{"name":"b","dataType":"BYTES"},
			{"name":"mvj","dataType":"JSON","singleValueField":false}],
			"metricFieldSpecs":[{"name":"hll","dataType":"BYTES"},{"name":"bd","dataType":"BIG_DECIMAL"}],
			"complexFieldSpecs":[{"name":"m","dataType":"MAP"},{"name":"st","dataType":"STRUCT"},{"name":"li","dataType":"LIST"}]}`,
		"unusable names": `{"dimensionFieldSpecs":[{"name":"","dataType":"INT"},{"name":"a\u0000b","dataType":"STRING"},
			{"name":"` + strings.Repeat("n", maxNameBytes+1) + `","dataType":"STRING"}]}`,
		"unknown type": `{"dimensionFieldSpecs":[{"name":"u","dataType":"UNKNOWN"},{"name":"v","dataType":"VECTOR"}]}`,
	} {
		t.Run(name, func(t *testing.T) {
			s := schemaOf(t, js)
			if got := Generate("t_OFFLINE", s, nil, Options{MultiStage: true}); got != nil {
				t.Errorf("got %d shapes, want nil:\n%s", len(got), dump(got))
			}
		})
	}
}

// An empty table (no sample rows): every filter that needs a value is left out,
// the rest is the same.
func TestEmptySample(t *testing.T) {
	s := benchEvents(t)
	ts := TableSchema{Table: "bench_events_OFFLINE", Schema: s}
	empty := Generate(ts.Table, s, []pinot.Row{}, Options{MultiStage: true})
	full := Generate(ts.Table, s, rowsOf(t, benchColumns, benchRows), Options{MultiStage: true})
	checkShapes(t, empty, ts)
	if !reflect.DeepEqual(names(empty), names(full)) {
		t.Errorf("names without rows %v, with rows %v", names(empty), names(full))
	}
	for _, sh := range empty {
		for _, f := range []string{" = ", " IN (", "BETWEEN"} {
			if strings.Contains(sh.SQL, f) {
				t.Errorf("%s filters on a value without rows: %s", sh.Name, sh.SQL)
			}
		}
	}
	if got := byName(empty)["regexp_like"].SQL; !strings.Contains(got, `REGEXP_LIKE("country", '^.')`) {
		t.Errorf("regexp_like without rows: %s", got)
	}
}

// A 1,000-column schema gives the same bounded set, picks the column that looks
// lowest-cardinality to group by, and the same output twice.
func TestWideSchemaIsBounded(t *testing.T) {
	s, rows := wideSchema(1000)
	ts := TableSchema{Table: "wide_OFFLINE", Schema: s}
	got := Generate(ts.Table, s, rows, Options{MultiStage: true})
	checkShapes(t, got, ts)
	sse := 0
	for _, sh := range got {
		if sh.Engine == SingleStage {
			sse++
		}
		if len(sh.SQL) > 2000 {
			t.Errorf("%s is %d bytes long", sh.Name, len(sh.SQL))
		}
	}
	if sse < 8 || sse > MaxSingleStage {
		t.Errorf("%d single-stage shapes, want 8..%d: %v", sse, MaxSingleStage, names(got))
	}
	if g := byName(got)["group_by_1"].SQL; !strings.Contains(g, `GROUP BY "c500" `) {
		t.Errorf("group_by_1 should group by the one-valued STRING column c500: %s", g)
	}
	if again := Generate(ts.Table, s, rows, Options{MultiStage: true}); !reflect.DeepEqual(got, again) {
		t.Errorf("not deterministic")
	}
}

// wideSchema has n columns cycling through the types, every tenth a metric and
// every seventh multi-value; c500 (STRING) has one value in ten rows, every
// other column ten.
func wideSchema(n int) (pinot.Schema, []pinot.Row) {
	types := []string{"STRING", "INT", "LONG", "DOUBLE", "JSON", "BYTES", "BOOLEAN", "TIMESTAMP", "FLOAT"}
	var s pinot.Schema
	for i := range n {
		f := pinot.FieldSpec{Name: fmt.Sprintf("c%d", i), DataType: types[i%len(types)], SingleValueField: i%7 != 3}
		if i == 500 {
			f.DataType, f.SingleValueField = "STRING", true
		}
		if i%10 == 9 && f.SingleValueField {
			f.DataType = "DOUBLE"
			s.MetricFieldSpecs = append(s.MetricFieldSpecs, f)
			continue
		}
		s.DimensionFieldSpecs = append(s.DimensionFieldSpecs, f)
	}
	s.DateTimeFieldSpecs = []pinot.FieldSpec{{Name: "ts", DataType: "LONG", SingleValueField: true, Format: "1:MILLISECONDS:EPOCH"}}
	rows := make([]pinot.Row, 10)
	for r := range rows {
		rows[r] = pinot.Row{"ts": json.Number(fmt.Sprint(1700000000000 + r))}
		for i := range n {
			v := any(fmt.Sprintf("v%d", r))
			if i == 500 {
				v = "same"
			}
			rows[r][fmt.Sprintf("c%d", i)] = v
		}
	}
	return s, rows
}

func BenchmarkGenerateWide(b *testing.B) {
	s, rows := wideSchema(1000)
	for b.Loop() {
		Generate("wide_OFFLINE", s, rows, Options{MultiStage: true})
	}
}

// With MultiStage, each single-stage shape runs again on the multi-stage
// engine with the same SQL, followed by the window and CTE shapes.
func TestMultiStage(t *testing.T) {
	s := benchEvents(t)
	ts := TableSchema{Table: "bench_events_OFFLINE", Schema: s}
	rows := rowsOf(t, benchColumns, benchRows)
	sse := Generate(ts.Table, s, rows, Options{})
	all := Generate(ts.Table, s, rows, Options{MultiStage: true})
	checkShapes(t, all, ts)
	if len(all) != 2*len(sse)+2 {
		t.Fatalf("%d shapes with MSE, %d without: want twice plus window and CTE", len(all), len(sse))
	}
	if !reflect.DeepEqual(all[:len(sse)], sse) {
		t.Errorf("single-stage shapes change with MultiStage")
	}
	for i, sh := range sse {
		m := all[len(sse)+i]
		if m.Name != "mse_"+sh.Name || m.SQL != sh.SQL || m.Engine != MultiStage {
			t.Errorf("twin of %s: %+v", sh.Name, m)
		}
	}
	win, cte := all[len(all)-2], all[len(all)-1]
	if win.Name != "mse_window" || !strings.Contains(win.SQL, `ROW_NUMBER() OVER (PARTITION BY "country" ORDER BY "latency_ms" DESC)`) ||
		!strings.Contains(win.SQL, `SUM("latency_ms") OVER (PARTITION BY "country")`) || !strings.Contains(win.SQL, " LIMIT 100) AS \"s\"") {
		t.Errorf("window: %+v", win)
	}
	if cte.Name != "mse_cte" || !strings.HasPrefix(cte.SQL, `WITH "grouped" AS (SELECT "country", COUNT(*) AS "n" FROM`) {
		t.Errorf("cte: %+v", cte)
	}
	for _, sh := range all[len(sse):] {
		if sh.Engine != MultiStage {
			t.Errorf("%s: engine %s", sh.Name, sh.Engine)
		}
	}
}

// A window without metrics orders by time and counts instead of summing.
func TestWindowWithoutMetrics(t *testing.T) {
	s := schemaOf(t, `{"dimensionFieldSpecs":[{"name":"k","dataType":"STRING"}],
		"dateTimeFieldSpecs":[{"name":"ts","dataType":"LONG","format":"1:MILLISECONDS:EPOCH","granularity":"1:MILLISECONDS"}]}`)
	ts := TableSchema{Table: "t_OFFLINE", Schema: s}
	got := Generate(ts.Table, s, nil, Options{MultiStage: true})
	checkShapes(t, got, ts)
	want := `SELECT "k", "ts", ROW_NUMBER() OVER (PARTITION BY "k" ORDER BY "ts" DESC) AS "rn", COUNT(*) OVER (PARTITION BY "k") AS "total" FROM (SELECT "k", "ts" FROM "t_OFFLINE" LIMIT 100) AS "s" LIMIT 10`
	if w := byName(got)["mse_window"].SQL; w != want {
		t.Errorf("window:\n%s\nwant\n%s", w, want)
	}
}

// Engine names read well in logs.
func TestEngineString(t *testing.T) {
	if SingleStage.String() != "single-stage" || MultiStage.String() != "multi-stage" {
		t.Errorf("%s, %s", SingleStage, MultiStage)
	}
}

// unmarshalRows decodes a JSON array of column→value objects with exact numbers.
func unmarshalRows(b []byte) ([]pinot.Row, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var rows []pinot.Row
	err := d.Decode(&rows)
	return rows, err
}
