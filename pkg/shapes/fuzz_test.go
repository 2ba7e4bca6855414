package shapes

import (
	"encoding/json"
	"testing"

	"github.com/warmup-sidecar/warmup-sidecar/pkg/pinot"
)

// Any schema and rows the controller and broker could send: no panic, bounded
// output, well-formed SQL with every identifier quoted.
func FuzzGenerate(f *testing.F) {
	f.Add(`{"dimensionFieldSpecs":[{"name":"country","dataType":"STRING"},{"name":"tags","dataType":"STRING","singleValueField":false}],
		"metricFieldSpecs":[{"name":"amount","dataType":"DOUBLE"}],
		"dateTimeFieldSpecs":[{"name":"ts","dataType":"LONG","format":"1:MILLISECONDS:EPOCH","granularity":"1:MILLISECONDS"}]}`,
		`[{"country":"US","amount":1.5,"ts":1700000000000,"tags":["a"]},{"country":"it's","amount":"-Infinity","ts":null}]`)
	f.Add(`{"dimensionFieldSpecs":[{"name":"we\"ird","dataType":"INT"},{"name":"select","dataType":"BOOLEAN"}],
		"timeFieldSpec":{"incomingGranularitySpec":{"name":"d","dataType":"STRING","timeType":"DAYS","timeFormat":"SIMPLE_DATE_FORMAT:yyyy-MM-dd'T'HH"}}}`,
		`[{"we\"ird":3,"select":true,"d":"2024-01-01T00"}]`)
	f.Add(`{"dimensionFieldSpecs":[{"name":"j","dataType":"JSON"}],"complexFieldSpecs":[{"name":"m","dataType":"MAP","childFieldSpecs":{}}]}`, `[]`)
	f.Add(`{"dateTimeFieldSpecs":[{"name":"t","dataType":"TIMESTAMP","format":"EPOCH|MINUTES|5"}]}`, `[{"t":"2024-01-01 00:00:00.0"}]`)
	f.Fuzz(func(t *testing.T, schemaJSON, rowsJSON string) {
		var s pinot.Schema
		if json.Unmarshal([]byte(schemaJSON), &s) != nil {
			return
		}
		rows, err := unmarshalRows([]byte(rowsJSON))
		if err != nil {
			rows = nil
		}
		a := TableSchema{Table: "a_OFFLINE", Schema: s, Sample: rows}
		b := TableSchema{Table: "b_REALTIME", Schema: s}
		got := Generate(a.Table, s, rows, Options{MultiStage: true})
		checkShapes(t, got, a)
		joins := JoinShapes([]TableSchema{a, b})
		checkShapes(t, joins, a, b)
		if len(joins) > MaxJoins {
			t.Errorf("%d joins", len(joins))
		}
	})
}
