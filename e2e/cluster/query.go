package cluster

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
)

// QueryResponse is the part of the broker's answer the harness reads; Raw keeps all of it.
type QueryResponse struct {
	ResultTable *struct {
		DataSchema struct {
			ColumnNames     []string `json:"columnNames"`
			ColumnDataTypes []string `json:"columnDataTypes"`
		} `json:"dataSchema"`
		Rows [][]any `json:"rows"`
	} `json:"resultTable"`
	Exceptions []struct {
		ErrorCode int    `json:"errorCode"`
		Message   string `json:"message"`
	} `json:"exceptions"`
	NumServersQueried   int             `json:"numServersQueried"`
	NumServersResponded int             `json:"numServersResponded"`
	TotalDocs           int64           `json:"totalDocs"`
	Raw                 json.RawMessage `json:"-"`
}

// Query runs sql through the first broker (Broker.Query).
func (c *Cluster) Query(ctx context.Context, sql string) (*QueryResponse, error) {
	return c.Broker(0).Query(ctx, sql)
}

// Query runs sql through the broker's POST /query/sql. Pinot reports query errors inside an HTTP
// 200 body: they come back in Exceptions, not as err.
func (b Broker) Query(ctx context.Context, sql string) (*QueryResponse, error) {
	return queryAt(ctx, b.c.http, b.URL(), sql)
}

// QueryAt is Broker.Query on any broker address: a pod's, a Service's.
func QueryAt(ctx context.Context, base, sql string) (*QueryResponse, error) {
	return queryAt(ctx, http.DefaultClient, base, sql)
}

func queryAt(ctx context.Context, client *http.Client, base, sql string) (*QueryResponse, error) {
	body, _ := json.Marshal(map[string]string{"sql": sql})
	data, err := doHTTP(ctx, client, http.MethodPost, base+"/query/sql", "application/json", bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("query %q: %w", sql, err)
	}
	var r QueryResponse
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("query %q: decode response: %w", sql, err)
	}
	r.Raw = data
	return &r, nil
}

// Count returns SELECT COUNT(*) FROM table through the first broker, failing on any query
// exception or partial answer.
func (c *Cluster) Count(ctx context.Context, table string) (int64, error) {
	r, err := c.Query(ctx, countSQL(table))
	return count(table, r, err)
}

// CountAt is Count through the broker at base (a pod's address, a Service's).
func CountAt(ctx context.Context, base, table string) (int64, error) {
	r, err := QueryAt(ctx, base, countSQL(table))
	return count(table, r, err)
}

func countSQL(table string) string { return fmt.Sprintf(`SELECT COUNT(*) FROM "%s"`, table) }

// count reads a COUNT(*) answer, failing on any query exception or partial answer.
func count(table string, r *QueryResponse, err error) (int64, error) {
	if err != nil {
		return 0, err
	}
	if len(r.Exceptions) > 0 {
		return 0, fmt.Errorf("count %s: error %d: %.200s", table, r.Exceptions[0].ErrorCode, r.Exceptions[0].Message)
	}
	if r.NumServersResponded != r.NumServersQueried {
		return 0, fmt.Errorf("count %s: %d of %d servers responded", table, r.NumServersResponded, r.NumServersQueried)
	}
	if r.ResultTable == nil || len(r.ResultTable.Rows) != 1 || len(r.ResultTable.Rows[0]) != 1 {
		return 0, fmt.Errorf("count %s: unexpected result %.300s", table, r.Raw)
	}
	n, ok := r.ResultTable.Rows[0][0].(float64)
	if !ok {
		return 0, fmt.Errorf("count %s: non-numeric count %v", table, r.ResultTable.Rows[0][0])
	}
	return int64(n), nil
}

// RoutingTable is the first broker's routing table (Broker.RoutingTable).
func (c *Cluster) RoutingTable(ctx context.Context, table string) (map[string]map[string][]string, error) {
	return c.Broker(0).RoutingTable(ctx, table)
}

// RoutingTable is the broker's GET /debug/routingTable/{table}: tableNameWithType → server
// instance id → segments. A broker without routing for the table answers 404 (an error here).
func (b Broker) RoutingTable(ctx context.Context, table string) (map[string]map[string][]string, error) {
	data, err := b.c.do(ctx, http.MethodGet, b.URL()+"/debug/routingTable/"+url.PathEscape(table), "", nil)
	if err != nil {
		return nil, fmt.Errorf("routing table of %s: %w", table, err)
	}
	var rt map[string]map[string][]string
	if err := json.Unmarshal(data, &rt); err != nil {
		return nil, fmt.Errorf("routing table of %s: decode: %w", table, err)
	}
	return rt, nil
}
