package inject

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"helm.sh/helm/v3/pkg/chart"
)

// Helm's values schema check, ported from helm.sh/helm/v3 v3.22.0 pkg/chartutil/jsonschema.go
// and values.go (Apache License 2.0): the same validator library, the same schema URL and the
// same error text, e.g.
//
//	values don't meet the specifications of the schema(s) in the following chart(s):
//	pinot-broker-warmup:
//	- at '/warmup/concurrency': maximum: got 65, want 64
//
// One difference: Helm compiles the schema on every render and can fetch $refs over file://,
// http(s):// and urn:; the embedded chart's schema has no $ref, so it is compiled once here with
// no loader at all (a post-renderer makes no network calls).

const schemaURL = "file:///values.schema.json"

// valuesSchema is a chart's compiled values.schema.json; nil when the chart has none.
type valuesSchema struct {
	chart  string
	schema *jsonschema.Schema
}

func compileSchema(c *chart.Chart) (_ *valuesSchema, reterr error) {
	if c.Schema == nil {
		return nil, nil
	}
	defer func() {
		if r := recover(); r != nil {
			reterr = fmt.Errorf("unable to validate schema: %s", r)
		}
	}()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(c.Schema))
	if err != nil {
		return nil, err
	}
	compiler := jsonschema.NewCompiler()
	compiler.UseLoader(jsonschema.SchemeURLLoader{})
	if err := compiler.AddResource(schemaURL, doc); err != nil {
		return nil, err
	}
	s, err := compiler.Compile(schemaURL)
	if err != nil {
		return nil, err
	}
	return &valuesSchema{chart: c.Name(), schema: s}, nil
}

// validate returns chartutil.ToRenderValues' error for values the schema rejects.
func (s *valuesSchema) validate(values map[string]any) error {
	if s == nil {
		return nil
	}
	if err := s.check(values); err != nil {
		return errors.New("values don't meet the specifications of the schema(s) in the following chart(s):\n" +
			s.chart + ":\n" + err.Error())
	}
	return nil
}

// check is chartutil.ValidateAgainstSingleSchema after the compile step.
func (s *valuesSchema) check(values map[string]any) (reterr error) {
	defer func() {
		if r := recover(); r != nil {
			reterr = fmt.Errorf("unable to validate schema: %s", r)
		}
	}()
	if err := s.schema.Validate(values); err != nil {
		// chartutil.JSONSchemaValidationError's text.
		return errors.New(strings.TrimPrefix(err.Error(), "jsonschema validation failed with '"+schemaURL+"#'\n") + "\n")
	}
	return nil
}
