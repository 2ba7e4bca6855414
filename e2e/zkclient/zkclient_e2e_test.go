//go:build e2e

package zkclient_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/e2e/cluster"
	"github.com/warmup-sidecar/warmup-sidecar/e2e/coldstart"
	"github.com/warmup-sidecar/warmup-sidecar/e2e/sidecar"
	"github.com/warmup-sidecar/warmup-sidecar/e2e/zkclient"
)

// TestJavaClientSelection runs Pinot's own Java client selection (the real pinot-java-client jar)
// against a real cluster of brokers, each with a sidecar beside it as in its pod, restarts the last
// broker under the client's load as a StatefulSet rollout would (SIGTERM, 30 s grace, start again),
// and checks what Helix offers to keep a broker out of that selection.
//
//	go test -tags e2e -count=1 -v -timeout 30m ./e2e/zkclient/
//
// WARMUP_E2E_BASE_PORT moves the ports (default 24000), WARMUP_E2E_KEEP=1 keeps the work dir,
// WARMUP_ZKCLIENT_BROKERS sets the fleet (default 2), WARMUP_ZKCLIENT_RESTARTS the restarts (3),
// WARMUP_ZKCLIENT_QPS the client's rate (20), WARMUP_ZKCLIENT_MIX a named mix of the study over the
// benchmark table (loaded then; default: a small mix over the placement tables).
func TestJavaClientSelection(t *testing.T) {
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	ctx := t.Context()
	n, restarts, qps := envInt(t, "WARMUP_ZKCLIENT_BROKERS", 2), envInt(t, "WARMUP_ZKCLIENT_RESTARTS", 3), envInt(t, "WARMUP_ZKCLIENT_QPS", 20)
	mix := os.Getenv("WARMUP_ZKCLIENT_MIX")
	qs := queries()
	if mix != "" {
		m, err := coldstart.NamedMix(mix, cluster.TableBench)
		if err != nil {
			t.Fatalf("WARMUP_ZKCLIENT_MIX: %v", err)
		}
		qs = nil
		for _, q := range m {
			qs = append(qs, q.SQL)
		}
	}
	c, err := cluster.Start(ctx, cluster.Options{BasePort: envInt(t, "WARMUP_E2E_BASE_PORT", 24000), Brokers: n,
		BenchTable: mix != "", Logger: log, KeepWorkDir: os.Getenv("WARMUP_E2E_KEEP") != ""})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Stop() })

	bin, err := sidecar.Build(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	var sidecars []*sidecar.Proc
	for i := range n {
		b := c.Broker(i)
		sc, err := sidecar.Start(bin, map[string]string{
			"WARMUP_BROKER_URL": b.URL(), "WARMUP_CONTROLLER_URL": c.ControllerURL(),
			"WARMUP_LISTEN_ADDR": fmt.Sprintf("127.0.0.1:%d", b.Ports().Sidecar),
		}, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { sc.Stop(10 * time.Second) })
		sidecars = append(sidecars, sc)
	}
	for _, sc := range sidecars {
		if _, err := sc.WaitReady(ctx, 100*time.Millisecond); err != nil {
			t.Fatal(err)
		}
	}

	client, err := zkclient.Start(ctx, zkclient.Options{
		ZKAddress: fmt.Sprintf("127.0.0.1:%d", c.Ports().ZooKeeper), Cluster: c.Name(), LibDir: c.LibDir(),
		WorkDir: filepath.Join(t.TempDir(), "zkclient"), Queries: qs, QPS: float64(qps), Logger: log,
	})
	if err != nil {
		t.Fatal(err)
	}
	stopped := false
	t.Cleanup(func() {
		if !stopped {
			client.Stop()
		}
	})
	time.Sleep(5 * time.Second) // steady load on the warm fleet

	// The highest ordinal goes first in a StatefulSet rollout.
	b, sc := c.Broker(n-1), sidecars[n-1]
	var rs []restartTimes
	for range restarts {
		rs = append(rs, restart(t, b, sc))
		time.Sleep(5 * time.Second)
	}
	d := disable(t, c, b)

	recs, err := client.Stop()
	stopped = true
	if err != nil {
		t.Fatal(err)
	}
	sels := client.Selections()
	t.Logf("%d records, selections: %s", len(recs), describe(sels))

	t.Run("steady load reaches every broker", func(t *testing.T) {
		for i := range n {
			steady := zkclient.Count(recs, c.Broker(i).Address(), recs[0].Sent, rs[0].stop)
			if steady.Sent < 50 || steady.NoBroker+steady.Errors+steady.Cancelled > 0 || steady.ToBroker == 0 {
				t.Errorf("before the first restart, %s: %+v, want ≥ 50 queries, none failed, some to it (failures here: the fleet does not keep up with WARMUP_ZKCLIENT_QPS on this machine)", c.Broker(i).Role(), steady)
			}
		}
	})
	t.Run("restart", func(t *testing.T) { checkRestarts(t, recs, sels, b.Address(), n, rs) })
	t.Run("disable", func(t *testing.T) { checkDisable(t, recs, sels, b.Address(), d) })
}

// queries are a small mix over the harness's placement tables (one per server, one on both).
func queries() []string {
	return []string{
		`SELECT COUNT(*) FROM placement_both`,
		`SELECT category, SUM(amount) FROM placement_s1 GROUP BY category ORDER BY SUM(amount) DESC LIMIT 5`,
		`SELECT id, amount FROM placement_s2 WHERE amount > 10 ORDER BY id LIMIT 10`,
		`SELECT category, COUNT(*) FROM placement_both WHERE id < 500 GROUP BY category LIMIT 10`,
	}
}

// restartTimes are the instants of one broker restart.
type restartTimes struct {
	stop    time.Time // SIGTERM sent
	start   time.Time // the new JVM started
	healthy time.Time // broker /health first 200
	ready   time.Time // the sidecar's /readyz first 200 (the pod's readiness)
}

// restart stops the broker as the kubelet does (SIGTERM, SIGKILL after the 30 s grace), starts it
// again and waits until its sidecar opens the gate, noting each instant.
func restart(t *testing.T, b cluster.Broker, sc *sidecar.Proc) restartTimes {
	t.Helper()
	var r restartTimes
	r.stop = time.Now()
	if err := b.Terminate(t.Context(), 30*time.Second); err != nil {
		t.Fatal(err)
	}
	r.start = time.Now()
	if err := b.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	// 8 min: a broker on a 2-core machine shared with other clusters took 3m40s to turn healthy.
	deadline := time.Now().Add(8 * time.Minute)
	for r.ready.IsZero() {
		if time.Now().After(deadline) {
			_, why := sc.Ready()
			t.Fatalf("sidecar not ready 8 min after the restart: %s", why)
		}
		if r.healthy.IsZero() && health(b) == http.StatusOK {
			r.healthy = time.Now()
		}
		if ok, _ := sc.Ready(); ok {
			r.ready = time.Now()
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Logf("restart of %s: SIGTERM→exit %s, start→/health 200 %s, start→/readyz 200 %s", b.Role(),
		r.start.Sub(r.stop).Round(time.Millisecond), r.healthy.Sub(r.start).Round(time.Millisecond), r.ready.Sub(r.start).Round(time.Millisecond))
	return r
}

func checkRestarts(t *testing.T, recs []zkclient.Record, sels []zkclient.Selection, broker string, n int, rs []restartTimes) {
	var warming, window zkclient.Tally
	var warmingMs []float64 // the warming broker's round trips, every restart
	steadyMs := zkclient.Latencies(recs, "", recs[0].Sent, rs[0].stop)
	for i, r := range rs {
		if left, ok := zkclient.Dropped(sels, broker, r.stop); ok && left.Before(r.start) {
			sd := zkclient.Count(recs, broker, r.stop, left)
			t.Logf("FIGURE restart %d shutdown: the selector dropped the broker %s after SIGTERM; %d queries picked it meanwhile (%d ok, %d failed, %d cancelled)",
				i+1, left.Sub(r.stop).Round(time.Millisecond), sd.ToBroker, sd.OK, sd.Errors, sd.Cancelled)
		} else {
			t.Errorf("restart %d: the selector kept %s until its process exited", i+1, broker)
		}
		picked, ok := zkclient.FirstSelected(sels, broker, r.start)
		if !ok {
			t.Fatalf("restart %d: the selector never picked %s again", i+1, broker)
		}
		w := zkclient.Count(recs, broker, picked, r.ready)
		all := zkclient.Count(recs, broker, r.stop, r.ready)
		t.Logf("FIGURE restart %d start: picked %s after process start (/health 200 at %s, /readyz 200 at %s); before /readyz 200, %d of the %d queries of those %s went to the warming broker (%.0f%%: %d ok, %d failed, %d cancelled); %d of the %d queries from SIGTERM to /readyz 200 (%.0f%%)",
			i+1, picked.Sub(r.start).Round(time.Millisecond), r.healthy.Sub(r.start).Round(time.Millisecond), r.ready.Sub(r.start).Round(time.Millisecond),
			w.ToBroker, w.Sent, r.ready.Sub(picked).Round(time.Millisecond), 100*w.Share(), w.OK, w.Errors, w.Cancelled,
			w.ToBroker, all.Sent, 100*float64(w.ToBroker)/float64(max(all.Sent, 1)))
		// The limit this test documents: the selection follows the external view (the same
		// instant as the broker's /health 200), not the pod's readiness.
		if !picked.Before(r.ready) {
			t.Errorf("restart %d: picked only %s after start, after /readyz 200 (%s): the Java client waited for warmth?",
				i+1, picked.Sub(r.start), r.ready.Sub(r.start))
		}
		if gap := picked.Sub(r.healthy).Abs(); gap > time.Second {
			t.Errorf("restart %d: picked %s apart from /health 200, want the same instant (both follow the external view)", i+1, gap)
		}
		if w.NoBroker > 0 && n > 1 {
			t.Errorf("restart %d: %d queries found no broker with %d in the fleet", i+1, w.NoBroker, n)
		}
		warming = warming.Add(w)
		warmingMs = append(warmingMs, zkclient.Latencies(recs, broker, picked, r.ready)...)
		window = window.Add(all)
	}
	t.Logf("FIGURE %d restarts, %d brokers: %d of %d queries (%.1f%%) between selection and /readyz 200 went to the warming broker; %.1f%% of all queries from SIGTERM to /readyz 200",
		len(rs), n, warming.ToBroker, warming.Sent, 100*warming.Share(), 100*float64(warming.ToBroker)/float64(max(window.Sent, 1)))
	slices.Sort(warmingMs)
	t.Logf("FIGURE latency: the warming broker's queries p50 %.1f ms, p99 %.1f ms (%d); the warm fleet's before the first restart p50 %.1f ms, p99 %.1f ms (%d)",
		coldstart.Percentile(warmingMs, 50), coldstart.Percentile(warmingMs, 99), len(warmingMs),
		coldstart.Percentile(steadyMs, 50), coldstart.Percentile(steadyMs, 99), len(steadyMs))
	// DynamicBrokerSelector picks uniformly among the brokers serving a query's tables.
	if share := warming.Share(); math.Abs(share-1/float64(n)) > 0.15 {
		t.Errorf("share of the warming broker %.2f, want about 1/%d", share, n)
	}
}

// disableTimes are the instants of the Helix enable/disable checks.
type disableTimes struct {
	disabled, enabled             time.Time // the live broker disabled, then enabled
	restartDisabled, enabledAgain time.Time // the broker started while disabled, then enabled
}

// disable checks Helix's instance disable, the one switch that takes a broker out of the external
// view: the broker then has no routing (error 410 for every table) and, started disabled, its
// /health never turns 200, so no sidecar could warm it behind that switch.
func disable(t *testing.T, c *cluster.Cluster, b cluster.Broker) disableTimes {
	t.Helper()
	ctx := t.Context()
	var d disableTimes
	d.disabled = time.Now()
	setState(t, c, b, "disable")
	waitFor(t, 30*time.Second, "a disabled broker answering 410", func() bool { return queryError(t, b) == 410 })
	if h := health(b); h != http.StatusOK {
		t.Errorf("/health of the disabled live broker: %d, want 200 (GOOD is sticky once reached)", h)
	}
	d.enabled = time.Now()
	setState(t, c, b, "enable")
	waitFor(t, 30*time.Second, "the enabled broker answering", func() bool { return queryError(t, b) == 0 })

	if err := b.Terminate(ctx, 30*time.Second); err != nil {
		t.Fatal(err)
	}
	setState(t, c, b, "disable")
	d.restartDisabled = time.Now()
	if err := b.Start(ctx); err != nil {
		t.Fatal(err)
	}
	// 30 s: the broker turned healthy 9–10 s after start in the restarts above.
	for end := time.Now().Add(30 * time.Second); time.Now().Before(end); time.Sleep(250 * time.Millisecond) {
		if h := health(b); h == http.StatusOK {
			t.Fatalf("a broker started disabled turned healthy after %s", time.Since(d.restartDisabled))
		}
	}
	if code := queryError(t, b); code != 410 {
		t.Errorf("a broker started disabled answers a table query with error %d, want 410 (no routing)", code)
	}
	d.enabledAgain = time.Now()
	setState(t, c, b, "enable")
	if err := b.WaitHealthy(ctx); err != nil {
		t.Fatal(err)
	}
	t.Logf("a broker started disabled: /health 503 and error 410 for 30 s; healthy %s after enable",
		time.Since(d.enabledAgain).Round(time.Millisecond))
	return d
}

func checkDisable(t *testing.T, recs []zkclient.Record, sels []zkclient.Selection, broker string, d disableTimes) {
	left, ok := zkclient.Dropped(sels, broker, d.disabled)
	if !ok || !left.Before(d.enabled) {
		t.Fatalf("the selector kept %s after its Helix disable", broker)
	}
	back, ok := zkclient.FirstSelected(sels, broker, d.enabled)
	if !ok {
		t.Fatalf("the selector never picked %s after its Helix enable", broker)
	}
	t.Logf("Helix disable: out of the selection %s after the call, back %s after enable",
		left.Sub(d.disabled).Round(time.Millisecond), back.Sub(d.enabled).Round(time.Millisecond))
	if n := zkclient.Count(recs, broker, d.restartDisabled, d.enabledAgain); n.ToBroker != 0 {
		t.Errorf("%d queries picked the broker while it was started disabled, want 0", n.ToBroker)
	}
}

// setState enables or disables a broker instance through the controller's API.
func setState(t *testing.T, c *cluster.Cluster, b cluster.Broker, state string) {
	t.Helper()
	u := fmt.Sprintf("%s/instances/%s/state?state=%s", c.ControllerURL(), url.PathEscape(b.InstanceID()), state)
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPut, u, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "text/plain")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", state, b.Role(), err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("%s %s: HTTP %d: %s", state, b.Role(), resp.StatusCode, body)
	}
}

// queryError sends one table query straight to the broker: its first error code, 0 for a success,
// -1 when the broker does not answer.
func queryError(t *testing.T, b cluster.Broker) int {
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	resp, err := b.Query(ctx, `SELECT COUNT(*) FROM placement_both`)
	if err != nil {
		return -1
	}
	if len(resp.Exceptions) > 0 {
		return resp.Exceptions[0].ErrorCode
	}
	return 0
}

func health(b cluster.Broker) int {
	hc := http.Client{Timeout: 2 * time.Second}
	resp, err := hc.Get(b.URL() + "/health")
	if err != nil {
		return 0
	}
	resp.Body.Close()
	return resp.StatusCode
}

func waitFor(t *testing.T, d time.Duration, what string, ok func() bool) {
	t.Helper()
	for end := time.Now().Add(d); !ok(); time.Sleep(100 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("no %s within %s", what, d)
		}
	}
}

func envInt(t *testing.T, name string, def int) int {
	t.Helper()
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		t.Fatalf("%s=%q: want a positive integer", name, v)
	}
	return n
}

func describe(sels []zkclient.Selection) string {
	if len(sels) == 0 {
		return "none"
	}
	var b strings.Builder
	for _, s := range sels {
		fmt.Fprintf(&b, "\n  %s %v", s.At.Sub(sels[0].At).Round(time.Millisecond), s.Brokers)
	}
	return b.String()
}
