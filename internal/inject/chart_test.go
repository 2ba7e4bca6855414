package inject

import (
	"encoding/json"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/warmup-sidecar/warmup-sidecar/internal/inject/charttest"
)

// renderChart renders the chart on disk (all templates, not just inject's) with Helm's library.
func renderChart(t *testing.T, values map[string]any) []k8sObject {
	t.Helper()
	var objs []k8sObject
	for name, text := range renderChartFiles(t, values) {
		if strings.HasSuffix(name, ".yaml") {
			objs = append(objs, objects(t, text)...)
		}
	}
	return objs
}

// renderChartFiles is every template's output (NOTES.txt too) by name.
func renderChartFiles(t *testing.T, values map[string]any) map[string]string {
	t.Helper()
	out, err := charttest.Render(charttest.Load(t, chartDir), values)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func byKind(objs []k8sObject, kind string) k8sObject {
	for _, o := range objs {
		if o.get("kind") == kind {
			return o
		}
	}
	return nil
}

func TestDisabledChartRendersNothing(t *testing.T) {
	if objs := renderChart(t, nil); len(objs) != 0 {
		t.Errorf("enabled defaults to false and must render nothing, got %d objects", len(objs))
	}
}

func TestPodMonitorScrapesTheInjectedContainer(t *testing.T) {
	pm := byKind(renderChart(t, map[string]any{
		"enabled":    true,
		"podMonitor": map[string]any{"labels": map[string]any{"release": "kube-prometheus-stack"}},
	}), "PodMonitor")
	if pm == nil {
		t.Fatal("no PodMonitor rendered")
	}
	if pm.get("metadata", "labels", "release") != "kube-prometheus-stack" {
		t.Error("podMonitor.labels must reach the PodMonitor (kube-prometheus-stack selects on them)")
	}
	ep := pm.get("spec", "podMetricsEndpoints").([]any)[0].(map[string]any)
	broker := brokerStatefulSets(objects(t, mustInject(t, fixture(t, "default.yaml"))))[0]
	c := containerNamed(broker, "containers", sidecar)
	port := c["ports"].([]any)[0].(map[string]any)
	if ep["port"] != port["name"] || ep["path"] != "/metrics" {
		t.Errorf("PodMonitor endpoint %v does not scrape the sidecar port %v", ep, port)
	}
	sel := pm.get("spec", "selector", "matchLabels").(map[string]any)
	podLabels := broker.get("spec", "template", "metadata", "labels").(map[string]any)
	for k, v := range sel {
		if podLabels[k] != v {
			t.Errorf("PodMonitor selector %s=%v does not match the official chart's broker pods", k, v)
		}
	}
}

// The metric names of the README's metrics table; the dashboard may use these
// and nothing else.
var designMetrics = []string{
	"pinot_warmup_broker_warm",
	"pinot_warmup_duration_seconds",
	"pinot_warmup_uncovered_servers",
	"pinot_warmup_probes_total",
	"pinot_warmup_probe_duration_seconds_bucket",
	"pinot_warmup_runs_total",
	"pinot_warmup_phase",
	"pinot_warmup_shape_latency_seconds",
	"pinot_warmup_shape_converged",
	"pinot_warmup_jvm_compile_rate",
	"pinot_warmup_broker_aot_cache",
	"pinot_warmup_broker_cpu_boost",
}

func TestDashboardConfigMapAndQueries(t *testing.T) {
	cm := byKind(renderChart(t, map[string]any{"enabled": true}), "ConfigMap")
	if cm == nil || cm.get("metadata", "labels", "grafana_dashboard") != "1" {
		t.Fatalf("dashboard ConfigMap missing or not labelled grafana_dashboard=1: %v", cm)
	}
	var dash struct {
		Templating struct {
			List []struct{ Name, Type string }
		}
		Panels []struct {
			Title   string
			Targets []struct{ Expr string }
		}
	}
	if err := json.Unmarshal([]byte(cm.get("data", "pinot-broker-warmup.json").(string)), &dash); err != nil {
		t.Fatalf("dashboard JSON: %v", err)
	}
	var vars []string
	for _, v := range dash.Templating.List {
		vars = append(vars, v.Name+":"+v.Type)
	}
	sort.Strings(vars)
	if want := []string{"datasource:datasource", "namespace:query", "pod:query"}; !reflect.DeepEqual(vars, want) {
		t.Errorf("template variables %v, want %v", vars, want)
	}
	metric := regexp.MustCompile(`pinot_warmup_[a-z_]+`)
	used := map[string]bool{}
	for _, p := range dash.Panels {
		for _, tg := range p.Targets {
			if tg.Expr == "" {
				t.Errorf("panel %q has a target without a plain expr", p.Title)
			}
			for _, m := range metric.FindAllString(tg.Expr, -1) {
				used[m] = true
			}
			if !strings.Contains(tg.Expr, `pod=~"$pod"`) || !strings.Contains(tg.Expr, `namespace=~"$namespace"`) {
				t.Errorf("panel %q ignores the pod/namespace variables: %s", p.Title, tg.Expr)
			}
		}
	}
	for m := range used {
		if !contains(designMetrics, m) {
			t.Errorf("dashboard uses %s, which the README does not define", m)
		}
	}
	for _, m := range designMetrics {
		if !used[m] {
			t.Errorf("dashboard never shows %s", m)
		}
	}
}

func contains(list []string, s string) bool {
	for _, l := range list {
		if l == s {
			return true
		}
	}
	return false
}
