package inject

import (
	"fmt"
	"log"

	"github.com/mitchellh/copystructure"
	"helm.sh/helm/v3/pkg/chart"
)

// Helm's values coalescing, ported from helm.sh/helm/v3 v3.22.0 pkg/chartutil/coalesce.go
// (Apache License 2.0) for a chart without dependencies, which is what inject renders: the
// user's values win, maps merge key by key, anything else (lists included) is replaced, and a
// null in the user's values deletes the chart's default. Importing chartutil itself would pull
// client-go into the sidecar binary (its Capabilities register the Kubernetes scheme).
//
// The tests compare the result with chartutil.CoalesceValues for every values variant.

// coalesceValues returns a deep copy of user coalesced with the chart's defaults, as
// chartutil.CoalesceValues does. Helm logs its "skipped value" warnings with log.Printf.
func coalesceValues(c *chart.Chart, user map[string]any) (map[string]any, error) {
	dest, err := deepCopy(user)
	if err != nil {
		return nil, err
	}
	// Coalescing writes into both maps: work on a copy of the defaults too.
	src, err := deepCopy(c.Values)
	if err != nil {
		return nil, err
	}
	coalesceChartValues(log.Printf, c.Metadata.Name, src, dest)
	return dest, nil
}

// deepCopy copies a values map with the library Helm uses (copystructure), so the copy has the
// same types; a nil map becomes an empty one.
func deepCopy(m map[string]any) (map[string]any, error) {
	v, err := copystructure.Copy(m)
	if err != nil {
		return nil, err
	}
	out, _ := v.(map[string]any)
	if out == nil {
		out = map[string]any{}
	}
	return out, nil
}

type printFn func(format string, v ...any)

func concatPrefix(a, b string) string {
	if a == "" {
		return b
	}
	return fmt.Sprintf("%s.%s", a, b)
}

func isTable(v any) bool {
	_, ok := v.(map[string]any)
	return ok
}

// coalesceChartValues is chartutil's coalesceValues with merge=false and no subcharts: the
// chart's values vc are laid under v.
func coalesceChartValues(printf printFn, chart string, vc, v map[string]any) {
	subPrefix := concatPrefix("", chart)
	for key, val := range vc {
		if value, ok := v[key]; ok {
			if value == nil {
				// A null in the user's values removes the key.
				delete(v, key)
			} else if dest, ok := value.(map[string]any); ok {
				src, ok := val.(map[string]any)
				if !ok {
					if val != nil {
						printf("warning: skipped value for %s.%s: Not a table.", subPrefix, key)
					}
				} else {
					coalesceTables(printf, dest, src, concatPrefix(subPrefix, key))
				}
			}
		} else {
			v[key] = val
		}
	}
}

// coalesceTables is chartutil's coalesceTablesFullKey with merge=false: src merged into dst,
// dst authoritative.
func coalesceTables(printf printFn, dst, src map[string]any, prefix string) map[string]any {
	if src == nil {
		return dst
	}
	if dst == nil {
		return src
	}
	srcOriginalNonNil := make(map[string]bool)
	for key, val := range src {
		if val != nil {
			srcOriginalNonNil[key] = true
		}
	}
	for key, val := range dst {
		if val == nil {
			src[key] = nil
		}
	}
	for key, val := range src {
		fullkey := concatPrefix(prefix, key)
		if dv, ok := dst[key]; ok && dv == nil && srcOriginalNonNil[key] {
			// The user nulls a chart default: remove the key.
			delete(dst, key)
		} else if !ok {
			dst[key] = val
		} else if isTable(val) {
			if isTable(dv) {
				coalesceTables(printf, dv.(map[string]any), val.(map[string]any), fullkey)
			} else {
				printf("warning: cannot overwrite table with non table for %s (%v)", fullkey, val)
			}
		} else if isTable(dv) && val != nil {
			printf("warning: destination for %s is a table. Ignoring non-table value (%v)", fullkey, val)
		}
	}
	return dst
}
