//go:build e2e

package scenarios

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/e2e/cluster"
)

// Scenario 10: a loopback-only extra broker listener as WARMUP_BROKER_URL: probes
// go through it and the broker's instance id does not change.
func TestExtraLoopbackListener(t *testing.T) {
	port := pinot.Ports().Broker + 50
	// The lines the chart's loopbackListener renders (templates/_pod.tpl). The
	// real broker refuses "access.protocols=http,warmup" (an "http" listener with
	// no port of its own: "null is not a valid port"); the queryPort listener is
	// always built beside the named ones.
	conf := []string{
		"pinot.broker.client.access.protocols=warmup",
		"pinot.broker.client.access.protocols.warmup.protocol=http",
		"pinot.broker.client.access.protocols.warmup.host=127.0.0.1",
		fmt.Sprintf("pinot.broker.client.access.protocols.warmup.port=%d", port),
	}
	before := brokerInstances(t)
	coldBroker(t, cluster.WithBrokerExtraConf(conf...))
	t.Cleanup(func() { coldBroker(t, cluster.WithBrokerExtraConf()); healthyBroker(t) })
	healthyBroker(t)

	internal := fmt.Sprintf("http://127.0.0.1:%d", port)
	_, offset := brokerLog(t, 0)
	p := startSidecar(t, env(exitFloor, "WARMUP_BROKER_URL="+internal, "WARMUP_MIN_ITERATIONS=200", "WARMUP_BUDGET=60s"))
	st := waitOutcome(t, p, 90*time.Second)
	if st.Outcome != "warm" {
		t.Fatalf("outcome through the extra listener: %q", st.Outcome)
	}
	time.Sleep(time.Second)
	log, _ := brokerLog(t, offset)
	if n := strings.Count(log, "requestId="); int64(n) < st.ProbesSucceeded {
		t.Errorf("broker logged %d queries, sidecar counted %d successes through %s", n, st.ProbesSucceeded, internal)
	}
	after := brokerInstances(t)
	if code := brokerHealth(); code != 200 {
		t.Errorf("the query port stopped answering /health (%d) with the extra listener", code)
	}
	if strings.Join(before, ",") != strings.Join(after, ",") || !contains(after, pinot.BrokerInstanceID()) {
		t.Fatalf("broker instances changed: before %v after %v (want %s)", before, after, pinot.BrokerInstanceID())
	}
	t.Logf("probes went through %s; broker instance id stayed %s", internal, pinot.BrokerInstanceID())
}

// brokerInstances lists the cluster's broker instance ids from the controller.
func brokerInstances(t *testing.T) []string {
	t.Helper()
	ids, err := pinot.BrokerInstances(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return ids
}

func contains(s []string, x string) bool {
	for _, v := range s {
		if v == x {
			return true
		}
	}
	return false
}
