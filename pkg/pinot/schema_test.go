package pinot

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"reflect"
	"strings"
	"sync"
	"testing"
)

// controllerServer answers every request with status and body and records the
// escaped request paths and Authorization headers it saw.
type controllerServer struct {
	mu    sync.Mutex
	paths []string
	auths []string
	url   string
}

func newControllerServer(t *testing.T, status int, body string) *controllerServer {
	t.Helper()
	cs := &controllerServer{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		cs.mu.Lock()
		cs.paths = append(cs.paths, r.URL.EscapedPath())
		cs.auths = append(cs.auths, r.Header.Get("Authorization"))
		cs.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = w.Write([]byte(body))
	}))
	t.Cleanup(srv.Close)
	cs.url = srv.URL
	return cs
}

// readTestdata reads a file of testdata/ ("testdata/x.json"), or a recorded
// real answer ("../../e2e/testdata/broker-responses/pinot-<version>/x.json").
func readTestdata(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// The schema JSON in testdata is shaped as Pinot 1.5.1's
// Schema.toPrettyJsonString writes it (read from its source): keys left out
// when at their default, singleValueField among them.
func TestSchema(t *testing.T) {
	cs := newControllerServer(t, 200, readTestdata(t, "testdata/controller-schema-1.5.1.json"))
	c := newClient(t, Options{ControllerURL: cs.url, Auth: staticAuth("Basic c2VjcmV0OnNlY3JldA==")})
	got, err := c.Schema(context.Background(), "bench_events_OFFLINE")
	if err != nil {
		t.Fatal(err)
	}
	want := Schema{
		SchemaName: "bench_events",
		DimensionFieldSpecs: []FieldSpec{
			{Name: "event_id", DataType: "LONG", SingleValueField: true},
			{Name: "country", DataType: "STRING", SingleValueField: true},
			{Name: "tags", DataType: "STRING", SingleValueField: false},
			{Name: "payload", DataType: "JSON", SingleValueField: true},
		},
		MetricFieldSpecs: []FieldSpec{
			{Name: "amount", DataType: "DOUBLE", SingleValueField: true},
			{Name: "price", DataType: "BIG_DECIMAL", SingleValueField: true},
		},
		DateTimeFieldSpecs: []FieldSpec{
			{Name: "ts", DataType: "LONG", SingleValueField: true, Format: "1:MILLISECONDS:EPOCH", Granularity: "1:MILLISECONDS"},
			{Name: "day", DataType: "STRING", SingleValueField: true, Format: "SIMPLE_DATE_FORMAT|yyyy-MM-dd", Granularity: "1:DAYS"},
		},
		ComplexFieldSpecs: []FieldSpec{{Name: "attrs", DataType: "MAP", SingleValueField: true, ChildFieldSpecs: map[string]FieldSpec{
			"key":   {Name: "key", DataType: "STRING", SingleValueField: true},
			"value": {Name: "value", DataType: "INT", SingleValueField: true},
		}}},
		PrimaryKeyColumns: []string{"event_id"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
	if want := []string{"/tables/bench_events/schema"}; !reflect.DeepEqual(cs.paths, want) {
		t.Errorf("paths %q, want %q: a typed name asks for its raw table", cs.paths, want)
	}
	if cs.auths[0] != "Basic c2VjcmV0OnNlY3JldA==" {
		t.Errorf("Authorization %q", cs.auths[0])
	}
}

// A legacy timeFieldSpec keeps Pinot's defaults (size 1, EPOCH) where the JSON
// leaves them out; the outgoing spec names the stored column.
func TestSchemaLegacyTimeField(t *testing.T) {
	cs := newControllerServer(t, 200, readTestdata(t, "testdata/controller-schema-legacy-time.json"))
	got, err := newClient(t, Options{ControllerURL: cs.url}).Schema(context.Background(), "airlines")
	if err != nil {
		t.Fatal(err)
	}
	if got.TimeFieldSpec == nil {
		t.Fatal("no timeFieldSpec")
	}
	in := got.TimeFieldSpec.IncomingGranularitySpec
	if want := (TimeGranularitySpec{Name: "DaysSinceEpoch", DataType: "INT", TimeType: "DAYS", TimeUnitSize: 1, TimeFormat: "EPOCH"}); in != want {
		t.Errorf("incoming %+v, want %+v", in, want)
	}
	if want := (TimeGranularitySpec{Name: "Hours", DataType: "LONG", TimeType: "HOURS", TimeUnitSize: 2, TimeFormat: "SIMPLE_DATE_FORMAT:yyyyMMddHH"}); got.TimeFieldSpec.Column() != want {
		t.Errorf("column %+v, want %+v", got.TimeFieldSpec.Column(), want)
	}
	noOut := TimeFieldSpec{IncomingGranularitySpec: in}
	if noOut.Column() != in {
		t.Errorf("without an outgoing spec the column is the incoming one")
	}
}

func TestSchemaErrors(t *testing.T) {
	ctx := context.Background()
	t.Run("404 is ErrSchemaNotFound", func(t *testing.T) {
		cs := newControllerServer(t, 404, readTestdata(t, "testdata/controller-schema-not-found.json"))
		_, err := newClient(t, Options{ControllerURL: cs.url}).Schema(ctx, "nope_REALTIME")
		if !errors.Is(err, ErrSchemaNotFound) || !strings.Contains(err.Error(), `"nope"`) {
			t.Fatalf("error %v, want ErrSchemaNotFound naming the table", err)
		}
	})
	t.Run("403", func(t *testing.T) {
		cs := newControllerServer(t, 403, "")
		var ue *UnauthorizedError
		if _, err := newClient(t, Options{ControllerURL: cs.url}).Schema(ctx, "t"); !errors.As(err, &ue) {
			t.Fatalf("error %v, want UnauthorizedError", err)
		}
	})
	t.Run("500 names the call and redacts an echoed credential", func(t *testing.T) {
		cs := newControllerServer(t, 500, "boom Authorization: Basic c2VjcmV0OnNlY3JldA==")
		_, err := newClient(t, Options{ControllerURL: cs.url, Auth: staticAuth("Basic c2VjcmV0OnNlY3JldA==")}).Schema(ctx, "t")
		want := `getting schema of "t" from controller: HTTP 500: boom Authorization: [REDACTED]`
		if err == nil || err.Error() != want {
			t.Fatalf("error %v, want %s", err, want)
		}
	})
	for name, body := range map[string]string{"null": "null", "garbage": "<html>", "wrong type": `{"dimensionFieldSpecs":{}}`} {
		t.Run(name+" body", func(t *testing.T) {
			cs := newControllerServer(t, 200, body)
			_, err := newClient(t, Options{ControllerURL: cs.url}).Schema(ctx, "t")
			if err == nil || !strings.HasPrefix(err.Error(), `decoding schema of "t": `) {
				t.Fatalf("error %v", err)
			}
		})
	}
	t.Run("no controller", func(t *testing.T) {
		if _, err := newClient(t, Options{BrokerURL: "http://127.0.0.1:8099"}).Schema(ctx, "t"); !errors.Is(err, ErrNoController) {
			t.Fatalf("error %v, want ErrNoController", err)
		}
	})
	t.Run("unreachable", func(t *testing.T) {
		_, err := newClient(t, Options{ControllerURL: closedURL(t)}).Schema(ctx, "t")
		if err == nil || !strings.HasPrefix(err.Error(), `getting schema of "t" from controller: `) {
			t.Fatalf("error %v", err)
		}
	})
}

// Odd table names reach the controller as one escaped path segment.
func TestSchemaEscapesTableName(t *testing.T) {
	cs := newControllerServer(t, 200, `{"schemaName":"x"}`)
	if _, err := newClient(t, Options{ControllerURL: cs.url}).Schema(context.Background(), "a b/c?d_REALTIME"); err != nil {
		t.Fatal(err)
	}
	if want := "/tables/a%20b%2Fc%3Fd/schema"; cs.paths[0] != want {
		t.Errorf("path %q, want %q", cs.paths[0], want)
	}
}

func TestRawTableName(t *testing.T) {
	for in, want := range map[string]string{
		"t_OFFLINE":          "t",
		"t_REALTIME":         "t",
		"t":                  "t",
		"_OFFLINE":           "_OFFLINE",
		"a_OFFLINE_REALTIME": "a_OFFLINE",
		"t_offline":          "t_offline",
	} {
		if got := RawTableName(in); got != want {
			t.Errorf("RawTableName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestQuoting(t *testing.T) {
	for in, want := range map[string]string{`t`: `"t"`, `we"ird`: `"we""ird"`, `""`: `""""""`, `select`: `"select"`} {
		if got := QuoteIdent(in); got != want {
			t.Errorf("QuoteIdent(%q) = %s, want %s", in, got, want)
		}
	}
	for in, want := range map[string]string{`x`: `'x'`, `it's`: `'it''s'`, `\`: `'\'`, ``: `''`} {
		if got := QuoteString(in); got != want {
			t.Errorf("QuoteString(%q) = %s, want %s", in, got, want)
		}
	}
}
