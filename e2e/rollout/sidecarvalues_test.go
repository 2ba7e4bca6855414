package rollout

import (
	"reflect"
	"strings"
	"testing"
)

// The sidecar's variables become the chart values an operator sets, typed by the chart's schema.
func TestSidecarEnvBecomesTheChartsWarmupValues(t *testing.T) {
	got, err := sidecarValues(map[string]string{
		"WARMUP_BUDGET": "40s", "WARMUP_CONCURRENCY": "1", "WARMUP_FAIL_CLOSED": "true",
		"WARMUP_CONVERGE_TOLERANCE": "0.3", "WARMUP_QUERY": "SELECT 1;SELECT 2", "WARMUP_TABLES": "a,b",
		"WARMUP_CONTROLLER_URL": "http://c:9000",
	})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"budget": "40s", "concurrency": 1, "failClosed": true, "convergeTolerance": 0.3,
		"queries": []string{"SELECT 1", "SELECT 2"}, "tables": []string{"a", "b"}, "controllerUrl": "http://c:9000"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("values %#v, want %#v", got, want)
	}
	for env, msg := range map[string]string{
		"WARMUP_LISTEN_ADDR=:1": "WARMUP_LISTEN_ADDR: not a setting the sidecar chart takes",
		"WARMUP_NOPE=1":         "WARMUP_NOPE: not a setting",
		"WARMUP_CONCURRENCY=x":  `WARMUP_CONCURRENCY="x": warmup.concurrency wants a value of type integer`,
	} {
		k, v, _ := strings.Cut(env, "=")
		if _, err := sidecarValues(map[string]string{k: v}); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("%s: %v, want an error with %q", env, err, msg)
		}
	}
}
