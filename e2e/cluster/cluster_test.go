//go:build e2e

package cluster_test

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/e2e/cluster"
)

// TestCluster starts one real cluster and runs every check against it: a cluster costs about a
// minute to start on 2 cores, so the checks share it and run in order.
//
//	go test -tags e2e -count=1 -v -timeout 30m ./e2e/cluster/
//
// WARMUP_E2E_BASE_PORT moves the ports, WARMUP_E2E_KEEP=1 keeps the work dir (logs),
// WARMUP_E2E_BENCH=0 skips the 1M-row table, WARMUP_E2E_HYBRID=0 the Kafka-fed hybrid table, WARMUP_E2E_RECORD=1 rewrites e2e/testdata/broker-responses.
func TestCluster(t *testing.T) {
	begin := time.Now()
	opts := cluster.Options{
		BasePort:    envInt(t, "WARMUP_E2E_BASE_PORT", cluster.DefaultBasePort),
		Logger:      slog.New(slog.NewTextHandler(os.Stderr, nil)),
		KeepWorkDir: os.Getenv("WARMUP_E2E_KEEP") != "",
		BenchTable:  os.Getenv("WARMUP_E2E_BENCH") != "0",
		Hybrid:      os.Getenv("WARMUP_E2E_HYBRID") != "0",
	}
	// Install first so the start timing below is the cluster's alone.
	lib, err := cluster.InstallPinot(t.Context(), os.Stderr)
	if err != nil {
		t.Fatal(err)
	}
	opts.PinotLibDir = lib
	t.Logf("TIMING install (cached or not): %s", time.Since(begin).Round(time.Millisecond))

	startBegin := time.Now()
	c, err := cluster.Start(t.Context(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Stop() })
	t.Logf("TIMING cluster start incl. tables: %s (work dir %s)", time.Since(startBegin).Round(time.Millisecond), c.WorkDir())

	t.Run("placement", func(t *testing.T) { checkPlacement(t, c) })
	t.Run("row counts", func(t *testing.T) { checkCounts(t, c) })
	if opts.BenchTable {
		t.Run("bench queries", func(t *testing.T) { checkBenchQueries(t, c) })
	}
	if opts.Hybrid {
		t.Run("hybrid table", func(t *testing.T) { checkHybrid(t, c) })
	}
	t.Run("broker responses", func(t *testing.T) { recordBrokerResponses(t, c) })
	t.Run("restart broker", func(t *testing.T) { checkRestart(t, c) })
	t.Run("extra listener", func(t *testing.T) { checkExtraListener(t, c) })
	t.Run("basic auth", func(t *testing.T) { checkBasicAuth(t, c) })
	t.Run("multi-stage disabled", func(t *testing.T) { checkMultiStageDisabled(t, c) })
	t.Run("stop leaves no process", func(t *testing.T) { checkStop(t, c, 1, opts.Hybrid) })
	t.Logf("TIMING whole test: %s", time.Since(begin).Round(time.Millisecond))
}

func checkPlacement(t *testing.T, c *cluster.Cluster) {
	ids := c.ServerInstanceIDs()
	for table, want := range map[string][]string{
		cluster.TableServer1: {ids[0]},
		cluster.TableServer2: {ids[1]},
		cluster.TableBoth:    {ids[0], ids[1]},
	} {
		got, err := c.ServersOf(t.Context(), table)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s routed to %v, want %v", table, got, want)
		}
	}
}

// checkCounts counts each table's OFFLINE leg (a hybrid table's raw count splits at the time
// boundary; its REALTIME leg is checkHybrid's).
func checkCounts(t *testing.T, c *cluster.Cluster) {
	for _, table := range c.Tables() {
		n, err := c.Count(t.Context(), table+"_OFFLINE")
		if err != nil {
			t.Fatal(err)
		}
		if want := int64(c.ExpectedRows(table)); n != want {
			t.Errorf("COUNT(*) FROM %s = %d, want %d", table, n, want)
		}
	}
}

// checkBenchQueries: the query shapes the benchmark uses all answer, complete, from both servers.
func checkBenchQueries(t *testing.T, c *cluster.Cluster) {
	for _, sql := range []string{
		`SELECT COUNT(*) FROM bench_events WHERE country = 'DE' AND device = 'ios'`,
		`SELECT country, SUM(amount), AVG(latency_ms) FROM bench_events GROUP BY country ORDER BY SUM(amount) DESC LIMIT 5`,
		`SELECT event_type, MAX(latency_ms) FROM bench_events WHERE ts BETWEEN 1767225600000 AND 1767312000000 GROUP BY event_type LIMIT 10`,
		`SELECT DISTINCTCOUNT(user_id) FROM bench_events`,
		`SELECT * FROM bench_events ORDER BY latency_ms DESC LIMIT 3`,
	} {
		start := time.Now()
		r, err := c.Query(t.Context(), sql)
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Exceptions) > 0 || r.NumServersQueried != 2 || r.NumServersResponded != 2 || r.ResultTable == nil || len(r.ResultTable.Rows) == 0 {
			t.Errorf("%s: %.400s", sql, r.Raw)
		}
		t.Logf("%s → %d rows in %s", sql, len(r.ResultTable.Rows), time.Since(start).Round(time.Millisecond))
	}
}

func checkRestart(t *testing.T, c *cluster.Cluster) {
	for i := range 3 {
		oldPID := c.BrokerPID()
		start := time.Now()
		if err := c.RestartBroker(t.Context()); err != nil {
			t.Fatal(err)
		}
		if pid := c.BrokerPID(); pid == 0 || pid == oldPID {
			t.Fatalf("broker pid after restart = %d (before %d)", pid, oldPID)
		}
		if pidAlive(oldPID) {
			t.Errorf("old broker pid %d still alive", oldPID)
		}
		if err := c.WaitBrokerHealthy(t.Context()); err != nil {
			t.Fatal(err)
		}
		t.Logf("TIMING RestartBroker #%d → /health 200: %s", i+1, time.Since(start).Round(time.Millisecond))
	}
	checkPlacement(t, c)
	checkCounts(t, c)
}

func checkStop(t *testing.T, c *cluster.Cluster, brokers int, hybrid bool) {
	pids := c.PIDs()
	want := 4 + brokers // zk, controller, 2 servers, the brokers
	if hybrid {
		want++ // kafka
	}
	if len(pids) != want {
		t.Errorf("running pids before Stop = %v, want %d (zk, controller, %d broker(s), 2 servers, kafka if hybrid)", pids, want, brokers)
	}
	start := time.Now()
	if err := c.Stop(); err != nil {
		t.Fatal(err)
	}
	t.Logf("TIMING Stop: %s", time.Since(start).Round(time.Millisecond))
	if err := c.Stop(); err != nil { // idempotent
		t.Fatal(err)
	}
	for _, pid := range pids {
		if pidAlive(pid) {
			t.Errorf("pid %d survived Stop", pid)
		}
	}
	if left := c.PIDs(); len(left) != 0 {
		t.Errorf("PIDs() after Stop = %v", left)
	}
	if err := c.RestartBroker(context.Background()); err == nil {
		t.Error("RestartBroker after Stop succeeded")
	}
}

// pidAlive: signal 0 probes a pid; ESRCH means gone. Stop reaps its children, so a reaped pid is
// gone unless the kernel reused it, which /proc/<pid>/cmdline would show.
func pidAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return false
	}
	cmdline, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	return strings.Contains(string(cmdline), "PinotAdministrator")
}

func envInt(t *testing.T, name string, def int) int {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		t.Fatalf("%s=%q: %v", name, v, err)
	}
	return n
}

// checkHybrid: the broker routes both typed legs of the hybrid table, the REALTIME leg from the
// servers consuming the topic's partitions, and each leg answers its own rows.
func checkHybrid(t *testing.T, c *cluster.Cluster) {
	ctx := t.Context()
	for leg, want := range map[string]int64{
		cluster.TableHybrid + "_OFFLINE":  cluster.RowsHybridOffline,
		cluster.TableHybrid + "_REALTIME": cluster.RowsHybridRealtime,
	} {
		n, err := c.Count(ctx, leg)
		if err != nil || n != want {
			t.Errorf("COUNT(*) of %s = %d, %v; want %d", leg, n, err, want)
		}
		servers, err := c.ServersOf(ctx, leg)
		if err != nil || len(servers) == 0 {
			t.Errorf("servers of %s = %v, %v; want at least one", leg, servers, err)
		}
		t.Logf("%s: %d rows on %v", leg, n, servers)
	}
	// A filter on the multi-value column works on both legs (the tables' data is what e2e probes see).
	r, err := c.Query(ctx, `SELECT COUNT(*) FROM "hybrid_events" WHERE tags = 't0'`)
	if err != nil || len(r.Exceptions) > 0 {
		t.Errorf("MV filter on the hybrid table: %v %+v", err, r)
	}
}
