package edit

import (
	"fmt"
	"sort"
	"testing"

	yaml "go.yaml.in/yaml/v3"
	"helm.sh/helm/v3/pkg/chart"

	"github.com/warmup-sidecar/warmup-sidecar/internal/inject/charttest"
	"github.com/warmup-sidecar/warmup-sidecar/internal/inject/find"
)

// chartDir is the pinot-broker-warmup chart, whose rules these tests hold equal to the room's.
const chartDir = "../../../charts/pinot-broker-warmup"

// The chart's rule (pinot-broker-warmup.decidedBy, for umbrella charts) and inject's (decidedBy)
// resolve every setting the same, for every shape of the broker's resources.
func TestDecidedByChartEqualsInject(t *testing.T) {
	shapes := map[string]string{
		"none given as null":   "null",
		"empty":                "{}",
		"memory only":          "{requests: {memory: 1.25Gi}}",
		"CPU request only":     "{requests: {cpu: \"1\"}}",
		"CPU limit":            "{requests: {cpu: \"1\"}, limits: {cpu: \"2\"}}",
		"CPU limit as number":  "{limits: {cpu: 2}}",
		"CPU limit millicores": "{limits: {cpu: 300m, memory: 1Gi}}",
		"memory limit only":    "{limits: {memory: 1Gi}}",
		"CPU limit null":       "{limits: {cpu: null}}",
	}
	c := charttest.Load(t, chartDir)
	names := make([]string, 0, len(shapes))
	for name := range shapes {
		names = append(names, name)
	}
	sort.Strings(names)
	for i, name := range names {
		c.Templates = append(c.Templates, &chart.File{Name: fmt.Sprintf("templates/by-%d.yaml", i),
			Data: []byte(fmt.Sprintf("{{ include \"pinot-broker-warmup.decidedBy\" (dict \"Values\" .Values \"BrokerResources\" (fromYaml `r: %s`).r) }}", shapes[name]))})
	}
	for _, setting := range []string{decidedByChart, decidedBySidecar, decidedByAuto} {
		for _, boost := range []bool{false, true} {
			values := map[string]any{"enabled": true, "brokerReadiness": map[string]any{"decidedBy": setting},
				"brokerCpuBoost": map[string]any{"enabled": boost}, "warmup": map[string]any{"controllerUrl": "http://pinot-controller:9000"}}
			out, err := charttest.Render(c, values)
			if err != nil {
				t.Fatal(err)
			}
			for i, name := range names {
				t.Run(fmt.Sprintf("%s/boost=%v/%s", setting, boost, name), func(t *testing.T) {
					var res struct{ R find.Resources }
					if err := yaml.Unmarshal([]byte("r: "+shapes[name]), &res); err != nil {
						t.Fatal(err)
					}
					want, _ := decidedBy(setting, res.R.Limits["cpu"], boost)
					if got := out[fmt.Sprintf("pinot-broker-warmup/templates/by-%d.yaml", i)]; got != want {
						t.Errorf("chart %q, inject %q", got, want)
					}
				})
			}
		}
	}
}
