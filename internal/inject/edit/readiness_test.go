package edit

import (
	"fmt"
	"reflect"
	"testing"

	yaml "go.yaml.in/yaml/v3"
	"helm.sh/helm/v3/pkg/chart"

	"github.com/warmup-sidecar/warmup-sidecar/internal/inject/charttest"
	"github.com/warmup-sidecar/warmup-sidecar/internal/inject/yamlnode"
)

func TestGatedTiming(t *testing.T) {
	for _, tc := range []struct {
		name    string
		old     probeTiming
		period  int
		startup bool
		want    probeTiming
	}{
		{"official readiness: 10 x 10 s kept as 100 x 1 s", probeTiming{60, 10, 10}, 1, false, probeTiming{0, 1, 100}},
		{"official startup: the 60 s delay counts too", probeTiming{60, 10, 10}, 1, true, probeTiming{0, 1, 160}},
		{"sidecar's own probe: 5 s x 2", probeTiming{0, 5, 2}, 1, false, probeTiming{0, 1, 10}},
		{"rounded up", probeTiming{0, 7, 3}, 2, false, probeTiming{0, 2, 11}},
		{"a faster probe keeps its period", probeTiming{5, 1, 4}, 2, false, probeTiming{0, 1, 4}},
		{"Kubernetes defaults", probeTiming{0, 10, 3}, 1, true, probeTiming{0, 1, 30}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := gatedTiming(tc.old, tc.period, tc.startup)
			if got != tc.want {
				t.Errorf("gatedTiming(%+v, %d, startup %v) = %+v, want %+v", tc.old, tc.period, tc.startup, got, tc.want)
			}
			if again := gatedTiming(got, tc.period, tc.startup); again != got {
				t.Errorf("a second application changed %+v to %+v", got, again)
			}
		})
	}
}

// The chart's rule (pinot-broker-warmup.gatedProbe, for the umbrella path and the sidecar's own
// probe) and inject's (gateProbe) give the same probe, for every setting and probe shape.
func TestChartRuleEqualsInject(t *testing.T) {
	probes := []struct {
		name, yaml string
		startup    bool
	}{
		{"official readiness", "initialDelaySeconds: 60\nperiodSeconds: 10\nfailureThreshold: 10\nsuccessThreshold: 1\ntimeoutSeconds: 10\nhttpGet: {path: /health, port: 8099}", false},
		{"official startup", "initialDelaySeconds: 60\nperiodSeconds: 10\nfailureThreshold: 10\nsuccessThreshold: 1\ntimeoutSeconds: 10", true},
		{"empty readiness", "{}", false},
		{"empty startup", "{}", true},
		{"delay only, startup", "initialDelaySeconds: 30", true},
		{"already fast", "periodSeconds: 1\nfailureThreshold: 5", false},
		{"rounded", "periodSeconds: 7\nfailureThreshold: 3\ntimeoutSeconds: 2", false},
	}
	settings := []map[string]any{
		{"enabled": true, "brokerReadiness": map[string]any{"decidedBy": "chart", "periodSeconds": 1}},
		{"enabled": true, "brokerReadiness": map[string]any{"decidedBy": "sidecar", "periodSeconds": 1}},
		{"enabled": true, "brokerReadiness": map[string]any{"decidedBy": "sidecar", "periodSeconds": 2}},
		{"enabled": false, "brokerReadiness": map[string]any{"decidedBy": "sidecar", "periodSeconds": 1}},
	}
	c := charttest.Load(t, chartDir)
	for i, p := range probes {
		tpl := "pinot-broker-warmup.brokerReadinessProbe"
		if p.startup {
			tpl = "pinot-broker-warmup.brokerStartupProbe"
		}
		c.Templates = append(c.Templates, &chart.File{Name: fmt.Sprintf("templates/probe-%d.yaml", i),
			Data: []byte(fmt.Sprintf("{{ include %q (dict \"Values\" .Values \"probe\" (fromYaml `%s`)) }}", tpl, p.yaml))})
	}
	for _, s := range settings {
		s["warmup"] = map[string]any{"controllerUrl": "http://pinot-controller:9000"}
		out, err := charttest.Render(c, s)
		if err != nil {
			t.Fatal(err)
		}
		for i, p := range probes {
			t.Run(fmt.Sprintf("enabled=%v/%v/%s", s["enabled"], s["brokerReadiness"], p.name), func(t *testing.T) {
				var fromChart map[string]any
				if err := yaml.Unmarshal([]byte(out[fmt.Sprintf("pinot-broker-warmup/templates/probe-%d.yaml", i)]), &fromChart); err != nil {
					t.Fatal(err)
				}
				var doc yaml.Node
				if err := yaml.Unmarshal([]byte(p.yaml), &doc); err != nil {
					t.Fatal(err)
				}
				if s["enabled"] == true {
					by := s["brokerReadiness"].(map[string]any)["decidedBy"].(string)
					if period := gatedPeriod(s, by); period > 0 {
						if _, err := gateProbe(yamlnode.DocumentRoot(&doc), period, p.startup); err != nil {
							t.Fatal(err)
						}
					}
				}
				var fromInject map[string]any
				if err := doc.Decode(&fromInject); err != nil {
					t.Fatal(err)
				}
				if len(fromChart)+len(fromInject) > 0 && !reflect.DeepEqual(fromChart, fromInject) {
					t.Errorf("chart %v\ninject %v", fromChart, fromInject)
				}
			})
		}
	}
}
