package pinot

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
)

// Schema is a table's schema as the controller's GET /tables/{table}/schema
// returns it (Pinot's Schema.toJsonObject): field specs by role.
type Schema struct {
	SchemaName          string      `json:"schemaName"`
	DimensionFieldSpecs []FieldSpec `json:"dimensionFieldSpecs"`
	MetricFieldSpecs    []FieldSpec `json:"metricFieldSpecs"`
	DateTimeFieldSpecs  []FieldSpec `json:"dateTimeFieldSpecs"`
	// TimeFieldSpec is the legacy single time column (schemas from before
	// dateTimeFieldSpecs); nil when absent.
	TimeFieldSpec     *TimeFieldSpec `json:"timeFieldSpec"`
	ComplexFieldSpecs []FieldSpec    `json:"complexFieldSpecs"`
	PrimaryKeyColumns []string       `json:"primaryKeyColumns"`
}

// FieldSpec is one column. Format and Granularity are set on date-time fields
// only; ChildFieldSpecs on complex (MAP, LIST, STRUCT) fields only.
type FieldSpec struct {
	Name     string `json:"name"`
	DataType string `json:"dataType"`
	// SingleValueField is true unless the schema says false: Pinot writes the key
	// only for multi-value columns.
	SingleValueField bool                 `json:"singleValueField"`
	Format           string               `json:"format"`
	Granularity      string               `json:"granularity"`
	ChildFieldSpecs  map[string]FieldSpec `json:"childFieldSpecs"`
}

// UnmarshalJSON reads a field spec with Pinot's default: an absent
// singleValueField means single-value.
func (f *FieldSpec) UnmarshalJSON(b []byte) error {
	type plain FieldSpec
	p := plain{SingleValueField: true}
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	*f = FieldSpec(p)
	return nil
}

// TimeFieldSpec is the legacy time column. The column holds the outgoing spec's
// values when one is given, else the incoming spec's.
type TimeFieldSpec struct {
	IncomingGranularitySpec TimeGranularitySpec  `json:"incomingGranularitySpec"`
	OutgoingGranularitySpec *TimeGranularitySpec `json:"outgoingGranularitySpec"`
}

// Column is the granularity spec that describes the stored column.
func (t TimeFieldSpec) Column() TimeGranularitySpec {
	if t.OutgoingGranularitySpec != nil {
		return *t.OutgoingGranularitySpec
	}
	return t.IncomingGranularitySpec
}

// TimeGranularitySpec is one side of a legacy time column: TimeType is a Java
// TimeUnit name, TimeFormat "EPOCH" or "SIMPLE_DATE_FORMAT:<pattern>".
type TimeGranularitySpec struct {
	Name         string `json:"name"`
	DataType     string `json:"dataType"`
	TimeType     string `json:"timeType"`
	TimeUnitSize int    `json:"timeUnitSize"`
	TimeFormat   string `json:"timeFormat"`
}

// UnmarshalJSON reads a granularity spec with Pinot's defaults: size 1, EPOCH.
func (g *TimeGranularitySpec) UnmarshalJSON(b []byte) error {
	type plain TimeGranularitySpec
	p := plain{TimeUnitSize: 1, TimeFormat: "EPOCH"}
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	*g = TimeGranularitySpec(p)
	return nil
}

// ErrSchemaNotFound means the controller has no schema for the table (HTTP 404).
var ErrSchemaNotFound = errors.New("controller has no schema for table")

// Schema reads a table's schema from the controller. A typed name
// ("t_OFFLINE") asks for its raw table's schema, which both legs share.
func (c *Client) Schema(ctx context.Context, table string) (Schema, error) {
	if c.controller == nil {
		return Schema{}, ErrNoController
	}
	raw := RawTableName(table)
	what := fmt.Sprintf("getting schema of %q from controller", raw)
	r, err := c.request(c.controller)
	if err != nil {
		return Schema{}, err
	}
	resp, err := r.SetContext(ctx).Get("/tables/" + pathEscape(raw) + "/schema")
	if err != nil {
		return Schema{}, fmt.Errorf("%s: %w", what, err)
	}
	switch resp.StatusCode() {
	case http.StatusOK:
	case http.StatusNotFound:
		return Schema{}, fmt.Errorf("schema of %q: %w", raw, ErrSchemaNotFound)
	case http.StatusUnauthorized, http.StatusForbidden:
		return Schema{}, &UnauthorizedError{What: what, Status: resp.StatusCode()}
	default:
		return Schema{}, httpError(what, resp)
	}
	// A pointer tells a JSON object from "null", which is no schema at all.
	var s *Schema
	if err := json.Unmarshal(resp.Body(), &s); err != nil || s == nil {
		if err == nil {
			err = errors.New("not a JSON object")
		}
		return Schema{}, fmt.Errorf("decoding schema of %q: %w", raw, err)
	}
	return *s, nil
}

// RawTableName strips the _OFFLINE or _REALTIME suffix of a typed table name.
func RawTableName(table string) string {
	for _, suffix := range []string{"_OFFLINE", "_REALTIME"} {
		if raw, ok := strings.CutSuffix(table, suffix); ok && raw != "" {
			return raw
		}
	}
	return table
}
