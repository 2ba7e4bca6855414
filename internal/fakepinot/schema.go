package fakepinot

import (
	"fmt"
	"net/http"
	"slices"
)

// DefaultSchema is the schema the fake controller serves for every table it
// lists, in the controller's JSON (GET /tables/{t}/schema, as recorded in
// e2e/testdata/broker-responses/pinot-1.5.1/controller-table-schema.json): string
// and integer dimensions, a multi-value column, two metrics and an epoch-millis
// time column, so every single-stage shape of pkg/shapes has a column to use.
func DefaultSchema(raw string) string {
	return fmt.Sprintf(`{
  "schemaName" : %q,
  "enableColumnBasedNullHandling" : false,
  "dimensionFieldSpecs" : [
    { "name" : "id", "dataType" : "INT", "fieldType" : "DIMENSION" },
    { "name" : "category", "dataType" : "STRING", "fieldType" : "DIMENSION" },
    { "name" : "city", "dataType" : "STRING", "fieldType" : "DIMENSION" },
    { "name" : "tags", "dataType" : "STRING", "singleValueField" : false, "fieldType" : "DIMENSION" }
  ],
  "metricFieldSpecs" : [
    { "name" : "amount", "dataType" : "DOUBLE", "fieldType" : "METRIC" },
    { "name" : "quantity", "dataType" : "LONG", "fieldType" : "METRIC" }
  ],
  "dateTimeFieldSpecs" : [
    { "name" : "ts", "dataType" : "LONG", "fieldType" : "DATE_TIME", "format" : "1:MILLISECONDS:EPOCH", "granularity" : "1:MILLISECONDS" }
  ]
}`, raw)
}

// SetSchema sets the schema the controller serves for a raw table name (the
// controller's JSON); "" answers 404, as for a table without a schema.
// Tables without one set get DefaultSchema while they are listed.
func (c *Controller) SetSchema(raw, body string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.schemas == nil {
		c.schemas = map[string]string{}
	}
	c.schemas[raw] = body
}

// SetSchemaAnswer makes f decide each GET /tables/{t}/schema answer for the raw
// name asked; f may block, as a controller that accepts and never answers does.
// Nil: serve the schemas again.
func (c *Controller) SetSchemaAnswer(f func(raw string) (int, string)) {
	c.mu.Lock()
	c.schemaAnswer = f
	c.mu.Unlock()
}

// SchemaNotFound is the controller's answer for a table without a schema: as
// SetSchemaAnswer(SchemaNotFound), a cluster whose tables have none.
func SchemaNotFound(raw string) (int, string) {
	return http.StatusNotFound, fmt.Sprintf(`{"code":404,"error":"Schema not found for table: %s"}`, raw)
}

// SchemaRequests counts GET /tables/{t}/schema requests.
func (c *Controller) SchemaRequests() int64 { return c.schemaRequests.Load() }

func (c *Controller) schema(w http.ResponseWriter, r *http.Request) {
	c.schemaRequests.Add(1)
	raw := r.PathValue("table")
	c.mu.Lock()
	answer, body, set := c.schemaAnswer, c.schemas[raw], false
	if _, ok := c.schemas[raw]; ok {
		set = true
	}
	listed := slices.Contains(c.tables, raw)
	c.mu.Unlock()
	switch {
	case answer != nil:
		write(w, func() (int, string) { return answer(raw) })
	case set && body != "":
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, body)
	case !set && listed:
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, DefaultSchema(raw))
	default:
		w.Header().Set("Content-Type", "application/json")
		write(w, func() (int, string) { return SchemaNotFound(raw) })
	}
}
