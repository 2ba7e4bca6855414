package pinot

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"time"
)

// Row is one result row, column name → value as the broker's JSON has it:
// json.Number for numbers (exact, so a LONG stays a LONG), string (also for
// TIMESTAMP, BIG_DECIMAL, BYTES and non-finite doubles), bool, []any for a
// multi-value column, nil for null.
type Row map[string]any

// SampleQueryID tags sample queries in the broker's query log like probes.
const SampleQueryID = ProbeIDPrefix + "sample"

// QueryError is a query the broker did not answer with rows; Result says how it
// failed (a BadQuery class means the table or SQL is wrong, not the broker).
type QueryError struct {
	What   string
	Result Result
}

func (e *QueryError) Error() string {
	return fmt.Sprintf("%s: %s: %s", e.What, e.Result.Class, e.Result.Message)
}

// Sample returns up to n rows of a typed table (SELECT * ... LIMIT n), so
// generated probes can filter on values that exist. An empty table gives no
// rows and no error. Probes never decode rows; only this call does. The broker
// is asked to give up (timeoutMs) by ctx's deadline: the caller bounds the call.
func (c *Client) Sample(ctx context.Context, typedTable string, n int) ([]Row, error) {
	what := fmt.Sprintf("sampling rows of %q from broker", typedTable)
	if n < 1 {
		return nil, fmt.Errorf("%s: row count %d: expected at least 1", what, n)
	}
	q := Query{
		SQL:           "SELECT * FROM " + QuoteIdent(typedTable) + " LIMIT " + strconv.Itoa(n),
		ClientQueryID: SampleQueryID,
	}
	if dl, ok := ctx.Deadline(); ok {
		q.Timeout = time.Until(dl)
	}
	res, body := c.post(ctx, q)
	if res.Class != Success {
		return nil, &QueryError{What: what, Result: res}
	}
	rows, err := DecodeRows(body)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return rows, nil
}

// DecodeRows reads resultTable.dataSchema.columnNames and resultTable.rows of a
// broker answer. An answer without a resultTable has no rows. A row shorter
// than the column list leaves the missing columns out; extra values are
// dropped.
func DecodeRows(body []byte) ([]Row, error) {
	var a struct {
		ResultTable *struct {
			DataSchema struct {
				ColumnNames []string `json:"columnNames"`
			} `json:"dataSchema"`
			Rows [][]any `json:"rows"`
		} `json:"resultTable"`
	}
	d := json.NewDecoder(bytes.NewReader(body))
	d.UseNumber()
	if err := d.Decode(&a); err != nil {
		return nil, fmt.Errorf("decoding result rows: %w", err)
	}
	if a.ResultTable == nil {
		return nil, nil
	}
	cols := a.ResultTable.DataSchema.ColumnNames
	rows := make([]Row, 0, len(a.ResultTable.Rows))
	for _, vals := range a.ResultTable.Rows {
		r := make(Row, len(cols))
		for i, v := range vals {
			if i < len(cols) {
				r[cols[i]] = v
			}
		}
		rows = append(rows, r)
	}
	return rows, nil
}
