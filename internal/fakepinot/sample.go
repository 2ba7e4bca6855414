package fakepinot

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
)

// selectStar matches the broker-side sample and the LIMIT 1 probe:
// SELECT * FROM <table> LIMIT <n>, the table quoted or not.
var selectStar = regexp.MustCompile(`(?i)^\s*SELECT\s+\*\s+FROM\s+("(?:[^"]|"")+"|[^\s"]+)\s+LIMIT\s+(\d+)\s*;?\s*$`)

// sampleOf reads the table and row count of a SELECT * ... LIMIT n; ok is
// false for any other query.
func sampleOf(sql string) (typed string, n int, ok bool) {
	m := selectStar.FindStringSubmatch(sql)
	if m == nil {
		return "", 0, false
	}
	n, err := strconv.Atoi(m[2])
	if err != nil {
		return "", 0, false
	}
	t := m[1]
	if strings.HasPrefix(t, `"`) {
		t = strings.ReplaceAll(t[1:len(t)-1], `""`, `"`)
	}
	return t, n, true
}

// SetSchema sets the schema (the controller's JSON) the broker's rows follow
// for a raw table name; tables without one follow DefaultSchema. Set the
// controller's (Controller.SetSchema) to the same to keep them consistent.
func (b *Broker) SetSchema(raw, body string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.schemas == nil {
		b.schemas = map[string]string{}
	}
	b.schemas[raw] = body
}

// SetSampleAnswer makes f decide the answer to every SELECT * FROM <t> LIMIT n
// (the sample, and the LIMIT 1 probe) for the typed table asked; nil: rows that
// follow the table's schema again. SetAnswer, when set, decides before it.
func (b *Broker) SetSampleAnswer(f func(typed string, n int) (int, string)) {
	b.mu.Lock()
	b.sampleAnswer = f
	b.mu.Unlock()
}

// sampleRowsServed caps the rows of one SELECT *: a fake table holds this many.
const sampleRowsServed = 100

// rows answers a SELECT * of a routed table with up to n rows that follow its
// schema, servers being the servers its routing names.
func (b *Broker) rows(typed string, n, servers int) (int, string) {
	b.mu.Lock()
	f, body := b.sampleAnswer, b.schemas[RawName(typed)]
	b.mu.Unlock()
	if f != nil {
		return f(typed, n)
	}
	if body == "" {
		body = DefaultSchema(RawName(typed))
	}
	return 200, RowsAnswer(body, min(n, sampleRowsServed), servers)
}

// RowsAnswer is a broker's answer to SELECT * over a table of this schema (the
// controller's JSON) with n rows from servers servers: columns in name order,
// as Pinot lists them for *, values of each column's type. A schema that does
// not decode gives an answer with no columns.
func RowsAnswer(schema string, n, servers int) string {
	var s schemaJSON
	_ = json.Unmarshal([]byte(schema), &s)
	cols := s.columns()
	names := make([]string, len(cols))
	types := make([]string, len(cols))
	for i, c := range cols {
		names[i], types[i] = c.spec.Name, c.resultType()
	}
	rows := make([][]any, n)
	for i := range rows {
		row := make([]any, len(cols))
		for j, c := range cols {
			row[j] = c.value(i)
		}
		rows[i] = row
	}
	answer := map[string]any{
		"resultTable":         map[string]any{"dataSchema": map[string]any{"columnNames": names, "columnDataTypes": types}, "rows": rows},
		"numRowsResultSet":    n,
		"partialResult":       false,
		"exceptions":          []any{},
		"timeUsedMs":          4,
		"numDocsScanned":      n,
		"totalDocs":           sampleRowsServed,
		"numServersQueried":   servers,
		"numServersResponded": servers,
		"numSegmentsQueried":  servers,
		"numSegmentsMatched":  servers,
	}
	out, _ := json.Marshal(answer)
	return string(out)
}

// schemaJSON is what the fake reads of a schema. (pkg/pinot has the full
// type, but its own tests use this fake, so the fake cannot import it.)
type schemaJSON struct {
	Dimensions []fieldJSON `json:"dimensionFieldSpecs"`
	Metrics    []fieldJSON `json:"metricFieldSpecs"`
	DateTimes  []fieldJSON `json:"dateTimeFieldSpecs"`
	Time       *struct {
		Incoming fieldJSON  `json:"incomingGranularitySpec"`
		Outgoing *fieldJSON `json:"outgoingGranularitySpec"`
	} `json:"timeFieldSpec"`
}

// fieldJSON is one field spec; SingleValue is nil when the key is absent
// (single-value, Pinot's default). TimeType is set on legacy time fields only.
type fieldJSON struct {
	Name        string `json:"name"`
	DataType    string `json:"dataType"`
	SingleValue *bool  `json:"singleValueField"`
	Format      string `json:"format"`
	TimeType    string `json:"timeType"`
}

func (f fieldJSON) multiValue() bool { return f.SingleValue != nil && !*f.SingleValue }

// sampleColumn is one schema column and what kind of values it holds.
type sampleColumn struct {
	spec fieldJSON
	// time is the epoch unit of a date-time column's values ("" for others).
	time string
}

// columns lists the schema's columns by name, as Pinot orders SELECT *.
func (s schemaJSON) columns() []sampleColumn {
	var out []sampleColumn
	for _, f := range append(append([]fieldJSON(nil), s.Dimensions...), s.Metrics...) {
		out = append(out, sampleColumn{spec: f})
	}
	for _, f := range s.DateTimes {
		out = append(out, sampleColumn{spec: f, time: epochUnit(f.Format)})
	}
	if s.Time != nil {
		g := s.Time.Incoming
		if s.Time.Outgoing != nil {
			g = *s.Time.Outgoing
		}
		out = append(out, sampleColumn{spec: fieldJSON{Name: g.Name, DataType: g.DataType}, time: epochUnit(g.TimeType)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].spec.Name < out[j].spec.Name })
	return out
}

// epochUnit is the unit of a colon ("1:SECONDS:EPOCH") or pipe ("EPOCH|SECONDS")
// date-time format; MILLISECONDS when it names none the fake knows.
func epochUnit(format string) string {
	for _, u := range []string{"NANOSECONDS", "MICROSECONDS", "MILLISECONDS", "SECONDS", "MINUTES", "HOURS", "DAYS"} {
		if strings.Contains(strings.ToUpper(format), u) {
			return u
		}
	}
	return "MILLISECONDS"
}

func (c sampleColumn) resultType() string {
	t := strings.ToUpper(c.spec.DataType)
	if c.spec.multiValue() {
		return t + "_ARRAY"
	}
	return t
}

// base is the fake table's first timestamp; row i is i minutes later.
var base = time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)

// value is row i's value of the column, as the broker's JSON writes its type.
func (c sampleColumn) value(i int) any {
	if c.spec.multiValue() {
		return []any{c.single(i), c.single(i + 1)}
	}
	return c.single(i)
}

func (c sampleColumn) single(i int) any {
	at := base.Add(time.Duration(i) * time.Minute)
	typ := strings.ToUpper(c.spec.DataType)
	if c.time != "" && (typ == "INT" || typ == "LONG") {
		return epochIn(at, c.time)
	}
	switch typ {
	case "INT", "LONG":
		return i
	case "FLOAT", "DOUBLE":
		return float64(i) + 0.5
	case "BOOLEAN":
		return i%2 == 0
	case "TIMESTAMP":
		return at.Format("2006-01-02 15:04:05.0")
	case "BIG_DECIMAL":
		return fmt.Sprintf("%d.25", i)
	case "BYTES":
		return fmt.Sprintf("%02x", i)
	case "JSON":
		return fmt.Sprintf(`{"n":%d}`, i)
	}
	// STRING and anything else: a few distinct values, so filters match rows.
	return fmt.Sprintf("%s_%d", c.spec.Name, i%3)
}

func epochIn(at time.Time, unit string) int64 {
	d := map[string]time.Duration{
		"NANOSECONDS": time.Nanosecond, "MICROSECONDS": time.Microsecond, "SECONDS": time.Second,
		"MINUTES": time.Minute, "HOURS": time.Hour, "DAYS": 24 * time.Hour,
	}[unit]
	if d == 0 {
		d = time.Millisecond
	}
	return at.UnixNano() / int64(d)
}
