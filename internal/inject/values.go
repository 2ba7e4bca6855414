package inject

import (
	"fmt"
	"strings"

	"helm.sh/helm/v3/pkg/chartutil"
)

// readValues reads the --values files in order, later files overriding earlier ones as with
// `helm -f a -f b`. Running inject is the opt-in, so "enabled" defaults to true here (the chart's
// own default, false, is for chart installs); a file can still set it false to pass through.
func readValues(files []string) (map[string]any, error) {
	merged := map[string]any{}
	for _, f := range files {
		v, err := chartutil.ReadValuesFile(f)
		if err != nil {
			return nil, fmt.Errorf("reading values file %s: %w", f, err)
		}
		merged = mergeMaps(merged, v.AsMap())
	}
	if _, set := merged["enabled"]; !set {
		merged["enabled"] = true
	}
	return merged, nil
}

// mergeMaps returns a copy of base with over laid on top: nested maps merge, anything else is
// replaced. This is Helm's rule for several -f files (pkg/cli/values keeps it unexported).
func mergeMaps(base, over map[string]any) map[string]any {
	out := make(map[string]any, len(base))
	for k, v := range base {
		out[k] = v
	}
	for k, v := range over {
		if vm, ok := v.(map[string]any); ok {
			if bm, ok := out[k].(map[string]any); ok {
				out[k] = mergeMaps(bm, vm)
				continue
			}
		}
		out[k] = v
	}
	return out
}

// describeFiles names the values files in messages.
func describeFiles(files []string) string {
	switch len(files) {
	case 0:
		return "the chart's default values"
	case 1:
		return "values file " + files[0]
	default:
		return "values files " + strings.Join(files, ", ")
	}
}

// lookup reads a nested value from coalesced values, e.g. lookup(v, "warmup", "controllerUrl").
func lookup(v map[string]any, keys ...string) any {
	var cur any = v
	for _, k := range keys {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = m[k]
	}
	return cur
}
