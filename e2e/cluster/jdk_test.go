//go:build e2e

package cluster_test

import (
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/e2e/cluster"
	"github.com/warmup-sidecar/warmup-sidecar/e2e/coldstart"
)

// TestBrokerOnAnotherJDK asks issue 28's first question of a real cluster: does the broker run on
// another JDK (WARMUP_E2E_BROKER_JAVA, a JDK home or its bin/java) while every other role keeps the
// machine's? It restarts the broker on that JDK, waits for /health 200 and sends single-stage and
// multi-stage queries (every shape of the study's reduce mix among them). WARMUP_E2E_AOT=1 then
// trains a JDK AOT cache (-XX:AOTCacheOutput, a few queries, SIGTERM), restarts from it and reads
// the JVM's -Xlog:aot output: used, rejected or no evidence, with the JVM's own lines.
//
//	WARMUP_E2E_BROKER_JAVA=/usr/lib/jvm/temurin-25-jdk-amd64 WARMUP_E2E_AOT=1 \
//	  go test -tags e2e -count=1 -v -run TestBrokerOnAnotherJDK ./e2e/cluster/
func TestBrokerOnAnotherJDK(t *testing.T) {
	java := brokerJava(t)
	c := startJDKCluster(t)

	startOn := func(name string, opts ...string) {
		t.Helper()
		if err := c.KillBroker(); err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		if err := c.StartBroker(t.Context(), cluster.WithBrokerJava(java), cluster.WithBrokerJVMOpts(append(slices.Clone(chartBrokerOpts), opts...)...)); err != nil {
			t.Fatal(err)
		}
		if err := c.WaitBrokerHealthy(t.Context()); err != nil {
			t.Fatalf("%s: the broker on %s never turned healthy: %v (%s)", name, java, err, firstException(t, c.LogPath("broker")))
		}
		cmdline, _ := os.ReadFile("/proc/" + strconv.Itoa(c.BrokerPID()) + "/cmdline")
		if !strings.HasPrefix(string(cmdline), java+"\x00") {
			t.Fatalf("%s: the broker runs %q, want %s", name, strings.SplitN(string(cmdline), "\x00", 2)[0], java)
		}
		t.Logf("TIMING %s: broker start on %s → /health 200: %s", name, java, time.Since(start).Round(time.Millisecond))
	}
	startOn("plain")
	queryBothEngines(t, c)

	if os.Getenv("WARMUP_E2E_AOT") != "1" {
		return
	}
	cache := filepath.Join(c.WorkDir(), "broker.aot")
	trainLog := filepath.Join(c.WorkDir(), "logs", "aot-train-%p.log")
	startOn("AOT training", "-XX:AOTCacheOutput="+cache, "-Xlog:aot=info,cds=info:file="+trainLog+":uptime,level,tags")
	queryBothEngines(t, c)
	stop := time.Now()
	if err := c.Broker(0).Terminate(t.Context(), 5*time.Minute); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(cache)
	if err != nil {
		t.Fatalf("no AOT cache after the training broker's exit (%s after SIGTERM): %v", time.Since(stop).Round(time.Second), err)
	}
	t.Logf("AOT cache %s: %d bytes, JVM exit %s after SIGTERM", cache, fi.Size(), time.Since(stop).Round(time.Second))
	runLog := filepath.Join(c.WorkDir(), "logs", "aot-run.log")
	startOn("from the AOT cache", "-XX:AOTCache="+cache, "-Xlog:aot=info,cds=info:file="+runLog+":uptime,level,tags")
	queryBothEngines(t, c)
	b, err := os.ReadFile(runLog)
	if err != nil {
		t.Fatal(err)
	}
	use := coldstart.ClassifyAOTLog(string(b))
	t.Logf("AOT cache %s; the JVM's lines: %q", use.State, use.Evidence)
	if use.State != coldstart.AOTUsed {
		t.Errorf("the broker did not use its AOT cache (%s): see %s", use.State, runLog)
	}
}

// chartBrokerOpts are the official chart's broker heap and GC options (its JAVA_OPTS less paths).
var chartBrokerOpts = []string{"-XX:ActiveProcessorCount=2", "-Xms256M", "-Xmx1G", "-XX:+UseG1GC", "-XX:MaxGCPauseMillis=200"}

// brokerJava is WARMUP_E2E_BROKER_JAVA (a JDK home or its bin/java) as a java executable that ran
// -version; the test is skipped when the variable is empty.
func brokerJava(t *testing.T) string {
	t.Helper()
	env := os.Getenv("WARMUP_E2E_BROKER_JAVA")
	if env == "" {
		t.Skip("WARMUP_E2E_BROKER_JAVA names no JDK")
	}
	java, err := coldstart.JavaExecutable(env)
	if err != nil {
		t.Fatalf("WARMUP_E2E_BROKER_JAVA: %v", err)
	}
	jdk, err := coldstart.ReadJDK(t.Context(), java)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("broker JDK: %s", jdk.Version)
	return java
}

// startJDKCluster starts a cluster with the benchmark table (the reduce mix's queries need it),
// stopped when the test ends.
func startJDKCluster(t *testing.T) *cluster.Cluster {
	t.Helper()
	lib, err := cluster.InstallPinot(t.Context(), os.Stderr)
	if err != nil {
		t.Fatal(err)
	}
	c, err := cluster.Start(t.Context(), cluster.Options{
		PinotLibDir: lib,
		BasePort:    envInt(t, "WARMUP_E2E_BASE_PORT", cluster.DefaultBasePort),
		Logger:      slog.New(slog.NewTextHandler(os.Stderr, nil)),
		KeepWorkDir: os.Getenv("WARMUP_E2E_KEEP") != "",
		BenchTable:  true,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Stop() })
	t.Logf("work dir %s", c.WorkDir())
	return c
}

// queryBothEngines: single-stage queries on every table, each reduce-mix shape, and multi-stage
// queries (a SET and a join) all answer with no exception from every server queried.
func queryBothEngines(t *testing.T, c *cluster.Cluster) {
	t.Helper()
	sqls := []string{`SELECT COUNT(*) FROM bench_events`}
	for _, table := range c.Tables() {
		sqls = append(sqls, `SELECT * FROM "`+table+`_OFFLINE" LIMIT 1`)
	}
	sqls = append(sqls, coldstart.ReduceMix("bench_events").Shapes()...)
	sqls = append(sqls,
		`SET useMultistageEngine=true; SELECT country, COUNT(*) FROM bench_events GROUP BY country ORDER BY COUNT(*) DESC LIMIT 3`,
		`SET useMultistageEngine=true; SELECT a.country, COUNT(*) FROM bench_events a JOIN (SELECT DISTINCT user_id FROM bench_events WHERE event_type = 'purchase' AND ts < 1767232800000) b ON a.user_id = b.user_id WHERE a.ts < 1767232800000 GROUP BY a.country LIMIT 10`)
	for _, sql := range sqls {
		start := time.Now()
		r, err := c.Query(t.Context(), sql)
		if err != nil {
			t.Errorf("%s: %v", sql, err)
			continue
		}
		mse := strings.HasPrefix(sql, "SET useMultistageEngine=true;")
		if len(r.Exceptions) > 0 || (!mse && r.NumServersResponded != r.NumServersQueried) || (mse && !strings.Contains(string(r.Raw), `"stageStats"`)) {
			t.Errorf("%s: %.500s", sql, r.Raw)
			continue
		}
		t.Logf("ok in %s: %.120s", time.Since(start).Round(time.Millisecond), sql)
	}
}
