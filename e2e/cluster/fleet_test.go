//go:build e2e

package cluster_test

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"testing"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/e2e/cluster"
)

// TestFleet starts a cluster of two brokers (the small tables only), checks each serves every
// table on its own ports, terminates one as a kubelet would (SIGTERM, grace), starts a third slot
// as a scale-out does, and checks Stop leaves no JVM behind.
//
//	go test -tags e2e -count=1 -v -run TestFleet ./e2e/cluster/
//
// WARMUP_E2E_BASE_PORT moves the ports (this test uses the base + PortSpan).
func TestFleet(t *testing.T) {
	base := envInt(t, "WARMUP_E2E_BASE_PORT", cluster.DefaultBasePort) + cluster.PortSpan
	lib, err := cluster.InstallPinot(t.Context(), os.Stderr)
	if err != nil {
		t.Fatal(err)
	}
	begin := time.Now()
	c, err := cluster.Start(t.Context(), cluster.Options{PinotLibDir: lib, BasePort: base, Brokers: 2,
		Logger: slog.New(slog.NewTextHandler(os.Stderr, nil)), KeepWorkDir: os.Getenv("WARMUP_E2E_KEEP") != ""})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Stop() })
	t.Logf("TIMING two-broker cluster start incl. tables: %s", time.Since(begin).Round(time.Millisecond))

	if c.Brokers() != 2 || c.Broker(0).PID() == 0 || c.Broker(1).PID() == 0 || c.Broker(2).PID() != 0 {
		t.Fatalf("brokers %d, pids %d %d %d: want 2 running, slot 3 empty", c.Brokers(), c.Broker(0).PID(), c.Broker(1).PID(), c.Broker(2).PID())
	}
	for i := range 2 {
		checkBrokerCounts(t, c, c.Broker(i))
	}

	b := c.Broker(1)
	stopBegin := time.Now()
	if err := b.Terminate(t.Context(), 30*time.Second); err != nil {
		t.Fatal(err)
	}
	t.Logf("TIMING %s SIGTERM → exit: %s", b.Role(), time.Since(stopBegin).Round(time.Millisecond))
	if b.PID() != 0 {
		t.Fatalf("%s still running after Terminate", b.Role())
	}
	checkBrokerCounts(t, c, c.Broker(0)) // the rest of the fleet keeps serving

	scale := c.Broker(2)
	if err := scale.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	if err := scale.WaitHealthy(t.Context()); err != nil {
		t.Fatal(err)
	}
	waitRoutes(t, scale, cluster.TableBoth+"_OFFLINE")
	checkBrokerCounts(t, c, scale)

	checkStop(t, c, 2, false)
}

// checkBrokerCounts asks broker b itself for every table's row count.
func checkBrokerCounts(t *testing.T, c *cluster.Cluster, b cluster.Broker) {
	t.Helper()
	for _, table := range c.Tables() {
		r, err := b.Query(t.Context(), fmt.Sprintf(`SELECT COUNT(*) FROM "%s_OFFLINE"`, table))
		if err != nil {
			t.Fatalf("%s: %v", b.Role(), err)
		}
		if len(r.Exceptions) > 0 || r.ResultTable == nil || len(r.ResultTable.Rows) != 1 {
			t.Fatalf("%s: COUNT(*) FROM %s: %.300s", b.Role(), table, r.Raw)
		}
		if n, _ := r.ResultTable.Rows[0][0].(float64); int(n) != c.ExpectedRows(table) {
			t.Errorf("%s: COUNT(*) FROM %s = %v, want %d", b.Role(), table, n, c.ExpectedRows(table))
		}
	}
}

// waitRoutes waits until b has routing for a typed table: a broker that joins a running cluster
// builds it after /health turned GOOD only for tables assigned later, so this is quick.
func waitRoutes(t *testing.T, b cluster.Broker, typed string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	for {
		_, err := b.RoutingTable(ctx, typed)
		if err == nil {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("%s never routed %s: %v", b.Role(), typed, err)
		case <-time.After(200 * time.Millisecond):
		}
	}
}
