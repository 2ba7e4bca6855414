package shapes

import (
	"strconv"
	"strings"

	"github.com/warmup-sidecar/warmup-sidecar/pkg/pinot"
)

// timeColumn is the table's time column and how its values are written.
type timeColumn struct {
	column
	// format is the schema's DateTimeFormatSpec text ("1:MILLISECONDS:EPOCH",
	// "EPOCH|SECONDS|1", "SIMPLE_DATE_FORMAT|yyyyMMdd", "TIMESTAMP", ...).
	format string
}

// timeColumnOf picks the first single-value date-time field of a comparable
// type, else the legacy time field; nil when there is none.
func timeColumnOf(s pinot.Schema) *timeColumn {
	for _, f := range s.DateTimeFieldSpecs {
		c := column{name: f.Name, typ: strings.ToUpper(f.DataType), single: f.SingleValueField, role: dateTime}
		if usableName(c.name) && c.single && comparableTypes[c.typ] {
			return &timeColumn{column: c, format: f.Format}
		}
	}
	if s.TimeFieldSpec == nil {
		return nil
	}
	g := s.TimeFieldSpec.Column()
	c := column{name: g.Name, typ: strings.ToUpper(g.DataType), single: true, role: dateTime}
	if !usableName(c.name) || !comparableTypes[c.typ] {
		return nil
	}
	// TimeGranularitySpec's timeFormat is "EPOCH" or "SIMPLE_DATE_FORMAT:<pattern>",
	// so size:unit:timeFormat is the colon format DateTimeFormatSpec reads.
	return &timeColumn{column: c, format: strconv.Itoa(g.TimeUnitSize) + ":" + g.TimeType + ":" + g.TimeFormat}
}

// timeFormat is a parsed DateTimeFormatSpec: kind EPOCH, TIMESTAMP or
// SIMPLE_DATE_FORMAT; size and unit matter for EPOCH only.
type timeFormat struct {
	kind string
	size int
	unit string
}

// javaTimeUnits are the units DATETRUNC takes as its input unit.
var javaTimeUnits = set("NANOSECONDS", "MICROSECONDS", "MILLISECONDS", "SECONDS", "MINUTES", "HOURS", "DAYS")

// calendarUnits are the units DateTimeFormatSpec knows beyond Java's.
var calendarUnits = set("WEEKS", "MONTHS", "YEARS")

// parseTimeFormat reads both of Pinot's spellings: colon
// "size:unit:kind[:pattern]" (it starts with a digit) and pipe
// "EPOCH|unit[|size]", "SIMPLE_DATE_FORMAT|pattern[|tz]", "TIMESTAMP".
func parseTimeFormat(f string) (timeFormat, bool) {
	if f == "" {
		return timeFormat{}, false
	}
	if f[0] >= '0' && f[0] <= '9' {
		tok := strings.SplitN(f, ":", 4)
		if len(tok) < 3 {
			return timeFormat{}, false
		}
		return checkTimeFormat(tok[2], tok[0], tok[1])
	}
	tok := strings.SplitN(f, "|", 3)
	switch tok[0] {
	case "EPOCH":
		unit, size := "MILLISECONDS", "1"
		if len(tok) > 1 {
			unit = tok[1]
		}
		if len(tok) > 2 {
			size = tok[2]
		}
		return checkTimeFormat("EPOCH", size, unit)
	case "TIMESTAMP", "SIMPLE_DATE_FORMAT":
		return timeFormat{kind: tok[0], size: 1, unit: "MILLISECONDS"}, true
	}
	return timeFormat{}, false
}

func checkTimeFormat(kind, size, unit string) (timeFormat, bool) {
	switch kind {
	case "TIMESTAMP", "SIMPLE_DATE_FORMAT":
		return timeFormat{kind: kind, size: 1, unit: "MILLISECONDS"}, true
	case "EPOCH":
		n, err := strconv.Atoi(size)
		if err != nil || n < 1 || !(javaTimeUnits[unit] || calendarUnits[unit]) {
			return timeFormat{}, false
		}
		return timeFormat{kind: kind, size: n, unit: unit}, true
	}
	return timeFormat{}, false
}

// bucket is a day bucket of the time column that fits its format: DATETRUNC
// where the values are a plain count of one Java time unit (TIMESTAMP, epoch
// millis, seconds, ...), else DATETIMECONVERT from the schema's own format
// (dates as text, epoch in 5-minute or calendar units). ok is false when the
// format is unreadable.
func (tc *timeColumn) bucket() (expr string, ok bool) {
	if tc.typ == "TIMESTAMP" {
		return "DATETRUNC('DAY', " + tc.ident() + ")", true
	}
	f, ok := parseTimeFormat(tc.format)
	if !ok {
		return "", false
	}
	integral := tc.typ == "INT" || tc.typ == "LONG"
	switch {
	case integral && f.kind == "TIMESTAMP":
		return "DATETRUNC('DAY', " + tc.ident() + ")", true
	case integral && f.kind == "EPOCH" && f.size == 1 && javaTimeUnits[f.unit]:
		return "DATETRUNC('DAY', " + tc.ident() + ", " + pinot.QuoteString(f.unit) + ")", true
	}
	return "DATETIMECONVERT(" + tc.ident() + ", " + pinot.QuoteString(tc.format) + ", '1:MILLISECONDS:EPOCH', '1:DAYS')", true
}
