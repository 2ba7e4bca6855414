package render

import (
	"fmt"
	"strings"

	"helm.sh/helm/v3/pkg/chartutil"

	"github.com/warmup-sidecar/warmup-sidecar/internal/inject/chartvalues"
)

// ReadValues reads the --values files in order, later files overriding earlier ones as with
// `helm -f a -f b`. Running inject is the opt-in, so "enabled" defaults to true here (the chart's
// own default, false, is for chart installs); a file can still set it false to pass through.
func ReadValues(files []string) (map[string]any, error) {
	merged := map[string]any{}
	for _, f := range files {
		v, err := chartutil.ReadValuesFile(f)
		if err != nil {
			return nil, fmt.Errorf("reading values file %s: %w", f, err)
		}
		merged = chartvalues.Merge(merged, v.AsMap())
	}
	if _, set := merged["enabled"]; !set {
		merged["enabled"] = true
	}
	return merged, nil
}

// DescribeFiles names the values files in messages.
func DescribeFiles(files []string) string {
	switch len(files) {
	case 0:
		return "the chart's default values"
	case 1:
		return "values file " + files[0]
	default:
		return "values files " + strings.Join(files, ", ")
	}
}
