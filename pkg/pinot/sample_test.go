package pinot

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"
)

func recorded(t *testing.T, name string) string {
	t.Helper()
	return readTestdata(t, "../../e2e/testdata/broker-responses/pinot-0.11.0/"+name)
}

// Sample runs SELECT * ... LIMIT n tagged like a probe, with the ctx deadline
// as the broker's timeout, and reads the rows of a real 0.11 answer.
func TestSample(t *testing.T) {
	b := newBroker(t)
	body := recorded(t, "query-select-star-limit-1.json")
	b.SetAnswer(func(string) (int, string) { return 200, body })
	c := newClient(t, Options{BrokerURL: b.URL()})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	rows, err := c.Sample(ctx, "placement_both_OFFLINE", 5)
	if err != nil {
		t.Fatal(err)
	}
	want := []Row{{"amount": json.Number("0.0"), "category": "c0", "id": json.Number("0")}}
	if !reflect.DeepEqual(rows, want) {
		t.Errorf("rows %#v, want %#v", rows, want)
	}
	if n := b.QueriesOf(`SELECT * FROM "placement_both_OFFLINE" LIMIT 5`); n != 1 {
		t.Errorf("broker saw the sample query %d times", n)
	}
	opts := b.LastQueryOptions()
	if !strings.HasPrefix(opts, "timeoutMs=") || !strings.HasSuffix(opts, ";clientQueryId=warmup-sidecar-sample") {
		t.Errorf("queryOptions %q: want the ctx deadline as timeoutMs and the sample's clientQueryId", opts)
	}
}

// Values keep the broker's JSON: exact integers beyond 2^53, arrays for
// multi-value columns, nil for null; short and long rows do not panic.
func TestDecodeRows(t *testing.T) {
	body := `{"resultTable":{"dataSchema":{"columnNames":["big","tags","n","s"],"columnDataTypes":["LONG","STRING_ARRAY","DOUBLE","STRING"]},
		"rows":[[9007199254740993,["a","b"],null,"x"],[1],[1,[],2.5,"y","extra"]]},"exceptions":[]}`
	rows, err := DecodeRows([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	want := []Row{
		{"big": json.Number("9007199254740993"), "tags": []any{"a", "b"}, "n": nil, "s": "x"},
		{"big": json.Number("1")},
		{"big": json.Number("1"), "tags": []any{}, "n": json.Number("2.5"), "s": "y"},
	}
	if !reflect.DeepEqual(rows, want) {
		t.Errorf("rows %#v\nwant %#v", rows, want)
	}
	for name, body := range map[string]string{
		"no resultTable":   `{"exceptions":[]}`,
		"null resultTable": recorded(t, "query-unknown-table.json"),
	} {
		if rows, err := DecodeRows([]byte(body)); err != nil || rows != nil {
			t.Errorf("%s: rows %v, err %v; want none", name, rows, err)
		}
	}
	if rows, err := DecodeRows([]byte(`{"resultTable":{"dataSchema":{"columnNames":["a"]},"rows":[]}}`)); err != nil || rows == nil || len(rows) != 0 {
		t.Errorf("empty table: rows %#v, err %v; want an empty list", rows, err)
	}
	if _, err := DecodeRows([]byte(`{"resultTable":{"rows":{}}}`)); err == nil || !strings.HasPrefix(err.Error(), "decoding result rows: ") {
		t.Errorf("rows of the wrong type: %v", err)
	}
}

func TestSampleErrors(t *testing.T) {
	ctx := context.Background()
	t.Run("unknown table is a BadQuery QueryError", func(t *testing.T) {
		b := newBroker(t)
		body := recorded(t, "query-unknown-table.json")
		b.SetAnswer(func(string) (int, string) { return 200, body })
		_, err := newClient(t, Options{BrokerURL: b.URL()}).Sample(ctx, "nope_OFFLINE", 3)
		var qe *QueryError
		if !errors.As(err, &qe) || qe.Result.Class != BadQuery || qe.Result.ErrorCode != CodeTableDoesNotExist {
			t.Fatalf("error %v, want a BadQuery QueryError with code 190", err)
		}
		if want := `sampling rows of "nope_OFFLINE" from broker: bad_query: error 190: TableDoesNotExistError`; err.Error() != want {
			t.Errorf("error %q, want %q", err, want)
		}
	})
	t.Run("row count below 1 sends nothing", func(t *testing.T) {
		b := newBroker(t)
		_, err := newClient(t, Options{BrokerURL: b.URL()}).Sample(ctx, "t_OFFLINE", 0)
		if err == nil || !strings.Contains(err.Error(), "row count 0: expected at least 1") || b.Queries() != 0 {
			t.Fatalf("error %v, %d queries", err, b.Queries())
		}
	})
	t.Run("odd table name is quoted", func(t *testing.T) {
		b := newBroker(t)
		b.SetAnswer(func(string) (int, string) {
			return 200, `{"exceptions":[],"numServersQueried":1,"numServersResponded":1}`
		})
		if _, err := newClient(t, Options{BrokerURL: b.URL()}).Sample(ctx, `we"ird_OFFLINE`, 1); err != nil {
			t.Fatal(err)
		}
		if b.QueriesOf(`SELECT * FROM "we""ird_OFFLINE" LIMIT 1`) != 1 {
			t.Errorf("the table name was not quoted for SQL")
		}
	})
	t.Run("unreachable broker", func(t *testing.T) {
		_, err := newClient(t, Options{BrokerURL: closedURL(t)}).Sample(ctx, "t_OFFLINE", 1)
		var qe *QueryError
		if !errors.As(err, &qe) || qe.Result.Class != Transient {
			t.Fatalf("error %v, want a Transient QueryError", err)
		}
	})
}
