//go:build e2e

package zkclient_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/e2e/cluster"
	"github.com/warmup-sidecar/warmup-sidecar/e2e/sidecar"
	"github.com/warmup-sidecar/warmup-sidecar/e2e/zkclient"
)

// TestJavaClientSelection runs Pinot's own Java client selection (the real pinot-java-client jar)
// against a real cluster with a sidecar beside the broker, restarts the broker under its load, and
// checks what Helix offers to keep a broker out of that selection.
//
//	go test -tags e2e -count=1 -v -timeout 30m ./e2e/zkclient/
//
// WARMUP_E2E_BASE_PORT moves the ports (default 24000), WARMUP_E2E_KEEP=1 keeps the work dir.
func TestJavaClientSelection(t *testing.T) {
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	ctx := t.Context()
	base := 24000
	if v := os.Getenv("WARMUP_E2E_BASE_PORT"); v != "" {
		var err error
		if base, err = strconv.Atoi(v); err != nil {
			t.Fatalf("WARMUP_E2E_BASE_PORT=%q: %v", v, err)
		}
	}
	c, err := cluster.Start(ctx, cluster.Options{BasePort: base, Logger: log, KeepWorkDir: os.Getenv("WARMUP_E2E_KEEP") != ""})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Stop() })

	binDir := t.TempDir()
	bin, err := sidecar.Build(ctx, binDir)
	if err != nil {
		t.Fatal(err)
	}
	sc, err := sidecar.Start(bin, map[string]string{
		"WARMUP_BROKER_URL": c.BrokerURL(), "WARMUP_CONTROLLER_URL": c.ControllerURL(),
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sc.Stop(10 * time.Second) })
	if _, err := sc.WaitReady(ctx, 100*time.Millisecond); err != nil {
		t.Fatal(err)
	}

	broker := fmt.Sprintf("127.0.0.1:%d", c.Ports().Broker)
	client, err := zkclient.Start(ctx, zkclient.Options{
		ZKAddress: fmt.Sprintf("127.0.0.1:%d", c.Ports().ZooKeeper), Cluster: c.Name(), LibDir: c.LibDir(),
		WorkDir: filepath.Join(t.TempDir(), "zkclient"), Queries: queries(), QPS: 20, Logger: log,
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
	time.Sleep(5 * time.Second) // steady load on the warm broker

	r := restart(t, c, sc)
	time.Sleep(5 * time.Second)
	d := disable(t, c)

	recs, err := client.Stop()
	stopped = true
	if err != nil {
		t.Fatal(err)
	}
	sels := client.Selections()
	t.Logf("%d records, selections: %s", len(recs), describe(sels))

	t.Run("steady load reaches the broker", func(t *testing.T) {
		steady := zkclient.Count(recs, broker, recs[0].Sent, r.stop)
		if steady.Sent < 50 || steady.OK != steady.Sent {
			t.Fatalf("before the restart: %+v, want ≥ 50 queries, all answered by %s", steady, broker)
		}
	})
	t.Run("restart", func(t *testing.T) { checkRestart(t, recs, sels, broker, r) })
	t.Run("disable", func(t *testing.T) { checkDisable(t, recs, sels, broker, d) })
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

// restartTimes are the instants of one graceful broker restart.
type restartTimes struct {
	stop    time.Time // SIGTERM sent
	start   time.Time // the new JVM started
	healthy time.Time // broker /health first 200
	ready   time.Time // the sidecar's /readyz first 200 (the pod's readiness)
}

// restart stops the broker as Kubernetes does (SIGTERM, SIGKILL after the grace), starts it again
// and waits until its sidecar opens the gate, noting each instant.
func restart(t *testing.T, c *cluster.Cluster, sc *sidecar.Proc) restartTimes {
	t.Helper()
	var r restartTimes
	r.stop = time.Now()
	if err := c.StopBroker(t.Context()); err != nil {
		t.Fatal(err)
	}
	r.start = time.Now()
	if err := c.StartBroker(t.Context()); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(4 * time.Minute)
	for r.ready.IsZero() {
		if time.Now().After(deadline) {
			_, why := sc.Ready()
			t.Fatalf("sidecar not ready 4 min after the restart: %s", why)
		}
		if r.healthy.IsZero() && health(c) == http.StatusOK {
			r.healthy = time.Now()
		}
		if ok, _ := sc.Ready(); ok {
			r.ready = time.Now()
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Logf("restart: stop→start %s, start→/health 200 %s, start→/readyz 200 %s",
		r.start.Sub(r.stop).Round(time.Millisecond), r.healthy.Sub(r.start).Round(time.Millisecond), r.ready.Sub(r.start).Round(time.Millisecond))
	return r
}

func checkRestart(t *testing.T, recs []zkclient.Record, sels []zkclient.Selection, broker string, r restartTimes) {
	if left, ok := zkclient.Dropped(sels, broker, r.stop); ok {
		sd := zkclient.Count(recs, broker, r.stop, left)
		t.Logf("FIGURE shutdown: the selector dropped the broker %s after SIGTERM; %d queries picked it meanwhile (%d ok, %d failed, %d cancelled)",
			left.Sub(r.stop).Round(time.Millisecond), sd.ToBroker, sd.OK, sd.Errors, sd.Cancelled)
	} else {
		t.Errorf("the selector never dropped %s after SIGTERM", broker)
	}
	picked, ok := zkclient.FirstSelected(sels, broker, r.start)
	if !ok {
		t.Fatalf("the selector never picked %s again after its restart", broker)
	}
	t.Logf("FIGURE start: selector picked the broker %s after its process start (/health 200 at %s, /readyz 200 at %s)",
		picked.Sub(r.start).Round(time.Millisecond), r.healthy.Sub(r.start).Round(time.Millisecond), r.ready.Sub(r.start).Round(time.Millisecond))
	// The limit this test documents: the selection follows the external view, not readiness.
	if !picked.Before(r.ready) {
		t.Fatalf("the selector picked %s only at %s, after /readyz 200 at %s: the Java client waited for warmth?",
			broker, picked.Sub(r.start), r.ready.Sub(r.start))
	}
	warming := zkclient.Count(recs, broker, picked, r.ready)
	t.Logf("FIGURE warming: %d of the %d queries sent between selection and /readyz 200 (%s) went to the warming broker (%.0f%%): %d ok, %d failed, %d cancelled",
		warming.ToBroker, warming.Sent, r.ready.Sub(picked).Round(time.Millisecond), 100*warming.Share(), warming.OK, warming.Errors, warming.Cancelled)
	if warming.ToBroker == 0 {
		t.Fatalf("no query reached the broker while it warmed (%+v)", warming)
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
func disable(t *testing.T, c *cluster.Cluster) disableTimes {
	t.Helper()
	ctx := t.Context()
	var d disableTimes
	d.disabled = time.Now()
	setState(t, c, "disable")
	waitFor(t, 30*time.Second, "a disabled broker answering 410", func() bool { return queryError(t, c) == 410 })
	if h := health(c); h != http.StatusOK {
		t.Errorf("/health of the disabled live broker: %d, want 200 (GOOD is sticky once reached)", h)
	}
	d.enabled = time.Now()
	setState(t, c, "enable")
	waitFor(t, 30*time.Second, "the enabled broker answering", func() bool { return queryError(t, c) == 0 })

	if err := c.StopBroker(ctx); err != nil {
		t.Fatal(err)
	}
	setState(t, c, "disable")
	d.restartDisabled = time.Now()
	if err := c.StartBroker(ctx); err != nil {
		t.Fatal(err)
	}
	// 30 s: the broker's query API is up in ~10 s on this machine, /health would be 200 soon after.
	for end := time.Now().Add(30 * time.Second); time.Now().Before(end); time.Sleep(250 * time.Millisecond) {
		if h := health(c); h == http.StatusOK {
			t.Fatalf("a broker started disabled turned healthy after %s", time.Since(d.restartDisabled))
		}
	}
	if code := queryError(t, c); code != 410 {
		t.Errorf("a broker started disabled answers a table query with error %d, want 410 (no routing)", code)
	}
	d.enabledAgain = time.Now()
	setState(t, c, "enable")
	if err := c.WaitBrokerHealthy(ctx); err != nil {
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

// setState enables or disables the broker instance through the controller's API.
func setState(t *testing.T, c *cluster.Cluster, state string) {
	t.Helper()
	u := fmt.Sprintf("%s/instances/%s/state?state=%s", c.ControllerURL(), url.PathEscape(c.BrokerInstanceID()), state)
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPut, u, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "text/plain")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s the broker: %v", state, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("%s the broker: HTTP %d: %s", state, resp.StatusCode, body)
	}
}

// queryError sends one table query straight to the broker: its first error code, 0 for a success,
// -1 when the broker does not answer.
func queryError(t *testing.T, c *cluster.Cluster) int {
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	resp, err := c.Query(ctx, `SELECT COUNT(*) FROM placement_both`)
	if err != nil {
		return -1
	}
	if len(resp.Exceptions) > 0 {
		return resp.Exceptions[0].ErrorCode
	}
	return 0
}

func health(c *cluster.Cluster) int {
	hc := http.Client{Timeout: 2 * time.Second}
	resp, err := hc.Get(c.BrokerURL() + "/health")
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
