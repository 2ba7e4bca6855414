package charttest

import (
	"testing"

	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/engine"
)

// Load is the chart in dir with a test's own templates added (to call named templates).
func Load(t testing.TB, dir string, templates ...*chart.File) *chart.Chart {
	t.Helper()
	c, err := loader.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	c.Templates = append(c.Templates, templates...)
	return c
}

// Render renders a loaded chart with the values, as release warmup in namespace pinot at Helm's
// default capabilities: every template's output by name, or the values' or a template's error.
func Render(c *chart.Chart, values map[string]any) (map[string]string, error) {
	top, err := chartutil.ToRenderValues(c, values, chartutil.ReleaseOptions{Name: "warmup", Namespace: "pinot"}, nil)
	if err != nil {
		return nil, err
	}
	return engine.Render(c, top)
}
