//go:build e2e

package cluster_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/warmup-sidecar/warmup-sidecar/e2e/cluster"
)

// brokerWithoutMultiStage is the broker config line that leaves the multi-stage engine out
// (CommonConstants.Helix.CONFIG_OF_MULTI_STAGE_ENGINE_ENABLED, default true, read by
// BaseBrokerStarter at start).
const brokerWithoutMultiStage = "pinot.multistage.engine.enabled=false"

// checkMultiStageDisabled: a broker started without the multi-stage engine answers every
// multi-stage request, by SET or by query option, with HTTP 200 and error 450 (QueryErrorCode.INTERNAL,
// "V2 Multi-Stage query engine not enabled.", BrokerRequestHandlerDelegate), and still serves the
// single-stage engine. The sidecar's engine detection reads this answer as "no engine"
// (pkg/prober/run_engine_test.go replays the recorded body).
func checkMultiStageDisabled(t *testing.T, c *cluster.Cluster) {
	if !c.AtLeast1x() {
		t.Skip("0.x has no multi-stage switch of this name")
	}
	r := newRecorder(t, c)
	defer r.flush("index-mse-disabled.json")
	if err := c.RestartBroker(t.Context(), cluster.WithBrokerExtraConf(brokerWithoutMultiStage)); err != nil {
		t.Fatal(err)
	}
	if err := c.WaitBrokerHealthy(t.Context()); err != nil {
		t.Fatalf("a broker without the multi-stage engine never turned healthy: %v (%s)", err, firstException(t, c.LogPath("broker")))
	}
	b := c.BrokerURL()
	// The detection query exactly as the sidecar sends it, a table query by SET and by option.
	detect := r.do("query-mse-disabled-select1", "POST", b, "/query/sql", sqlBody("SET useMultistageEngine=true; SELECT 1"), nil)
	bySet := r.do("query-mse-disabled-set", "POST", b, "/query/sql",
		sqlBody(`SET useMultistageEngine=true; SELECT COUNT(*) FROM "placement_both"`), nil)
	byOption := r.do("query-mse-disabled-option", "POST", b, "/query/sql",
		`{"sql":"SELECT COUNT(*) FROM \"placement_both\"","queryOptions":"useMultistageEngine=true"}`, nil)
	for _, x := range []exchange{detect, bySet, byOption} {
		if code := queryErrorCode(t, x); x.Status != 200 || code != 450 || !strings.Contains(string(x.body), "Multi-Stage query engine not enabled") {
			t.Errorf("%s: HTTP %d error %d, want HTTP 200 and error 450 \"V2 Multi-Stage query engine not enabled.\": %.300s", x.Name, x.Status, code, x.body)
		}
		if hasStageStats(t, x) {
			t.Errorf("%s carries stageStats", x.Name)
		}
	}
	sse := r.do("query-mse-disabled-single-stage", "POST", b, "/query/sql", sqlBody(`SELECT COUNT(*) FROM "placement_both"`), nil)
	if code := queryErrorCode(t, sse); sse.Status != 200 || code != -1 {
		t.Errorf("single-stage query on a broker without the multi-stage engine: HTTP %d error %d: %.300s", sse.Status, code, sse.body)
	}
	restoreBroker(t, c)
}

// hasStageStats: the answer came from the multi-stage engine.
func hasStageStats(t *testing.T, x exchange) bool {
	t.Helper()
	var r struct {
		StageStats json.RawMessage `json:"stageStats"`
	}
	if err := json.Unmarshal(x.body, &r); err != nil {
		t.Fatalf("%s: not JSON: %v", x.Name, err)
	}
	return len(r.StageStats) > 0 && string(r.StageStats) != "null"
}
