package fakepinot

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

func post(t *testing.T, url, body string) (int, string) {
	t.Helper()
	resp, err := http.Post(url+"/query/sql", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// get is fetch's GET, failing the test when no answer comes.
func get(t *testing.T, url string) (int, string) {
	t.Helper()
	code, body, err := fetch(t, http.MethodGet, url)
	if err != nil {
		t.Fatal(err)
	}
	return code, body
}

// The controller serves each listed table's schema, 404 for others, as 1.5.1 does.
func TestControllerServesSchemas(t *testing.T) {
	c := NewController("orders")
	defer c.Close()
	code, body := get(t, c.URL()+"/tables/orders/schema")
	var s schemaJSON
	if err := json.Unmarshal([]byte(body), &s); code != 200 || err != nil || len(s.columns()) != 7 {
		t.Errorf("schema of orders: %d %v %s", code, err, body)
	}
	if code, body := get(t, c.URL()+"/tables/nosuch/schema"); code != 404 || body != `{"code":404,"error":"Schema not found for table: nosuch"}` {
		t.Errorf("schema of an unlisted table: %d %s", code, body)
	}
	c.SetSchema("orders", "")
	if code, _ := get(t, c.URL()+"/tables/orders/schema"); code != 404 {
		t.Errorf("schema set to none: %d, want 404", code)
	}
	if c.SchemaRequests() != 3 {
		t.Errorf("%d schema requests counted, want 3", c.SchemaRequests())
	}
}

// SELECT * answers rows whose columns and values follow the schema.
func TestSampleRowsFollowTheSchema(t *testing.T) {
	b := NewBroker(ThreeServers())
	defer b.Close()
	code, body := post(t, b.URL(), `{"sql":"SELECT * FROM \"events_REALTIME\" LIMIT 10","queryOptions":"timeoutMs=900"}`)
	var a struct {
		ResultTable struct {
			DataSchema struct {
				ColumnNames     []string `json:"columnNames"`
				ColumnDataTypes []string `json:"columnDataTypes"`
			} `json:"dataSchema"`
			Rows [][]any `json:"rows"`
		} `json:"resultTable"`
		NumServersResponded int `json:"numServersResponded"`
	}
	if err := json.Unmarshal([]byte(body), &a); code != 200 || err != nil {
		t.Fatalf("%d %v %s", code, err, body)
	}
	cols := strings.Join(a.ResultTable.DataSchema.ColumnNames, ",")
	types := strings.Join(a.ResultTable.DataSchema.ColumnDataTypes, ",")
	if cols != "amount,category,city,id,quantity,tags,ts" || types != "DOUBLE,STRING,STRING,INT,LONG,STRING_ARRAY,LONG" {
		t.Errorf("columns %s of types %s", cols, types)
	}
	if len(a.ResultTable.Rows) != 10 || a.NumServersResponded != 1 || b.Samples() != 1 {
		t.Fatalf("%d rows from %d servers, %d samples counted", len(a.ResultTable.Rows), a.NumServersResponded, b.Samples())
	}
	ts := a.ResultTable.Rows[1][6].(float64)
	if at := time.UnixMilli(int64(ts)).UTC(); !at.Equal(base.Add(time.Minute)) {
		t.Errorf("row 1's ts is %v, want epoch millis of %v", at, base.Add(time.Minute))
	}
	if tags, ok := a.ResultTable.Rows[0][5].([]any); !ok || len(tags) != 2 {
		t.Errorf("multi-value tags %v, want an array", a.ResultTable.Rows[0][5])
	}
}

// Each multi-stage mode answers as its broker does; a single-stage query is
// answered alike by all.
func TestMultiStageModes(t *testing.T) {
	b := NewBroker(ThreeServers())
	defer b.Close()
	mse := `{"sql":"SET useMultistageEngine=true; SELECT COUNT(*) FROM (SELECT id FROM \"orders_OFFLINE\" LIMIT 5) AS s"}`
	byOption := `{"sql":"SELECT 1","queryOptions":"useMultistageEngine=true"}`
	sse := `{"sql":"SELECT COUNT(*) FROM orders_OFFLINE"}`
	for _, tc := range []struct {
		mode     MultiStage
		mse, sse string
	}{
		{MultiStageServed, `"stageStats":{`, `"numServersResponded":1,`},
		{MultiStageDisabled, `"exceptions":[{"errorCode":450,"message":"InternalError: V2 Multi-Stage query engine not enabled."}]`, `"numServersResponded":1,`},
		{MultiStageAbsent, `"exceptions":[],`, `"numServersResponded":1,`},
	} {
		b.SetMultiStage(tc.mode)
		for _, q := range []string{mse, byOption} {
			if code, body := post(t, b.URL(), q); code != 200 || !strings.Contains(body, tc.mse) ||
				(tc.mode != MultiStageServed && strings.Contains(body, "stageStats")) {
				t.Errorf("mode %d, %s: %d %s", tc.mode, q, code, body)
			}
		}
		if code, body := post(t, b.URL(), sse); code != 200 || !strings.Contains(body, tc.sse) || strings.Contains(body, "stageStats") {
			t.Errorf("mode %d, single-stage: %d %s", tc.mode, code, body)
		}
	}
}

// A silent controller accepts and never answers until the client gives up.
func TestSilentControllerHoldsRequests(t *testing.T) {
	c := NewController("orders")
	defer c.Close()
	c.SetSilent(true)
	client := http.Client{Timeout: 200 * time.Millisecond}
	for _, path := range []string{"/tables", "/tables/orders/schema"} {
		if resp, err := client.Get(c.URL() + path); err == nil {
			resp.Body.Close()
			t.Errorf("%s answered %d while silent", path, resp.StatusCode)
		}
	}
	c.SetSilent(false)
	if code, _ := get(t, c.URL()+"/tables"); code != 200 {
		t.Errorf("/tables after silence: %d", code)
	}
}
