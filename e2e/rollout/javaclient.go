package rollout

import (
	"context"
	"fmt"
	"net"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/e2e/coldstart"
	"github.com/warmup-sidecar/warmup-sidecar/e2e/zkclient"
)

// JavaClient is what a client that picks brokers the way Pinot's Java client does (e2e/zkclient:
// the real pinot-java-client's DynamicBrokerSelector over ZooKeeper's external view) met during
// one event, beside the balancer's clients. It never sees Kubernetes readiness.
type JavaClient struct {
	QPS float64 `json:"qps"`
	// Queries sent in the rollout window; Failed and Cancelled of them; NoBroker: the selector
	// had none to pick.
	Queries   int `json:"queries"`
	Failed    int `json:"failed"`
	Cancelled int `json:"cancelled"`
	NoBroker  int `json:"no_broker"`
	// ByState splits them by the state of the picked broker's pod at the send instant.
	ByState map[State]*StateTally `json:"by_state"`
	// NotReady are the queries sent to a broker whose pod was not Ready (starting, warming or
	// terminating): the ones a Service would not have sent there. Share is of Queries.
	NotReady      int     `json:"not_ready"`
	NotReadyShare float64 `json:"not_ready_share"`
	// Warming are those sent to a pod whose broker was healthy but not yet Ready: for ON pods,
	// the sidecar still warming it.
	Warming      int     `json:"warming"`
	WarmingShare float64 `json:"warming_share"`
	SteadyP99Ms  float64 `json:"steady_p99_ms"`
	RolloutP99Ms float64 `json:"rollout_p99_ms"`
}

// StateTally is the Java client's queries to brokers in one state.
type StateTally struct {
	Sent      int     `json:"sent"`
	Failed    int     `json:"failed"`
	Cancelled int     `json:"cancelled"`
	P99Ms     float64 `json:"p99_ms"`
}

// summariseJava tallies the Java client's records against the pods' timeline. Latencies count a
// cancellation at the timeout, as the study's other figures do.
func summariseJava(recs []zkclient.Record, events []Event, t0 time.Time, b Bounds, timeout time.Duration, qps float64) *JavaClient {
	j := &JavaClient{QPS: qps, ByState: map[State]*StateTally{}}
	lat := map[State][]float64{}
	var steady, all []float64
	in := func(w coldstart.Window, at time.Time) bool { return w.Has(at.Sub(t0)) }
	for _, r := range recs {
		ms := float64(r.Latency) / float64(time.Millisecond)
		if r.Cancelled {
			ms = float64(timeout) / float64(time.Millisecond)
		}
		if in(b.Steady, r.Sent) && r.Broker != "" && (r.OK() || r.Cancelled) {
			steady = append(steady, ms)
		}
		if !in(b.Rollout, r.Sent) {
			continue
		}
		j.Queries++
		if r.Broker == "" {
			j.NoBroker++
			continue
		}
		st := StateAt(events, r.Broker, r.Sent)
		t := j.ByState[st]
		if t == nil {
			t = &StateTally{}
			j.ByState[st] = t
		}
		t.Sent++
		switch {
		case r.Cancelled:
			t.Cancelled++
			j.Cancelled++
		case r.Err != "":
			t.Failed++
			j.Failed++
		}
		if r.OK() || r.Cancelled {
			lat[st] = append(lat[st], ms)
			all = append(all, ms)
		}
		if st != StateReady {
			j.NotReady++
		}
		if st == StateWarming {
			j.Warming++
		}
	}
	for st, v := range lat {
		slices.Sort(v)
		j.ByState[st].P99Ms = coldstart.Percentile(v, 99)
	}
	slices.Sort(steady)
	slices.Sort(all)
	j.SteadyP99Ms, j.RolloutP99Ms = coldstart.Percentile(steady, 99), coldstart.Percentile(all, 99)
	if j.Queries > 0 {
		j.NotReadyShare = float64(j.NotReady) / float64(j.Queries)
		j.WarmingShare = float64(j.Warming) / float64(j.Queries)
	}
	return j
}

// startJava starts the Java client for event tag at qps, sending the mix's queries.
func (e *env) startJava(ctx context.Context, tag string, qps float64) (*zkclient.Client, error) {
	c := e.bench.Cluster
	var queries []string
	for _, q := range e.cfg.Mix {
		queries = append(queries, q.SQL)
	}
	jc, err := zkclient.Start(ctx, zkclient.Options{
		ZKAddress: net.JoinHostPort("127.0.0.1", strconv.Itoa(c.Ports().ZooKeeper)), Cluster: c.Name(), LibDir: c.LibDir(),
		WorkDir: filepath.Join(e.work, "javaclient", tag), Queries: queries, QPS: qps, Timeout: e.cfg.Timeout, Logger: e.cfg.Logger,
	})
	if err != nil {
		return nil, fmt.Errorf("%s: java client: %w", tag, err)
	}
	return jc, nil
}
