package rollout

import (
	"testing"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/e2e/zkclient"
)

func TestJavaClientQueriesAreTalliedByTheStateOfThePickedBroker(t *testing.T) {
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	recs := []zkclient.Record{
		{Sent: at(5), Broker: "b1", Latency: 20 * time.Millisecond},             // steady
		{Sent: at(15), Broker: "b1", Err: "connection refused"},                 // pod 1 terminating
		{Sent: at(30), Broker: "b0", Latency: 30 * time.Millisecond},            // pod 0 ready
		{Sent: at(50), Broker: "b1", Cancelled: true, Latency: 2 * time.Second}, // pod 1 warming (healthy, not Ready)
		{Sent: at(60), Broker: "b1", Latency: 900 * time.Millisecond},           // warming
		{Sent: at(90), Broker: "b1", Latency: 40 * time.Millisecond},            // ready
		{Sent: at(95), Broker: "", Err: "no broker"},                            // none to pick
		{Sent: at(250), Broker: "b1", Latency: 10 * time.Millisecond},           // after the window
	}
	j := summariseJava(recs, rolloutEvents, t0, rolloutBounds, 2*time.Second, 3)
	if j.Queries != 6 || j.NoBroker != 1 || j.Failed != 1 || j.Cancelled != 1 {
		t.Errorf("queries %d, no broker %d, failed %d, cancelled %d; want 6, 1, 1, 1", j.Queries, j.NoBroker, j.Failed, j.Cancelled)
	}
	if j.NotReady != 3 || j.Warming != 2 || j.WarmingShare != 2.0/6 {
		t.Errorf("not ready %d, warming %d (share %.3f); want 3, 2 (0.333)", j.NotReady, j.Warming, j.WarmingShare)
	}
	w := j.ByState[StateWarming]
	if w == nil || w.Sent != 2 || w.Cancelled != 1 || w.P99Ms != 2000 {
		t.Errorf("warming tally %+v, want 2 sent, 1 cancelled, p99 at the timeout", w)
	}
	if r := j.ByState[StateReady]; r == nil || r.Sent != 2 {
		t.Errorf("ready tally %+v, want 2 sent", r)
	}
	if j.SteadyP99Ms != 20 {
		t.Errorf("steady p99 %.0f ms, want 20", j.SteadyP99Ms)
	}
}
