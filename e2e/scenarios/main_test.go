//go:build e2e

// Package scenarios runs the real warmup-sidecar binary against a real Apache
// Pinot cluster (e2e/cluster) on loopback: the claims of README.md, checked
// against a real broker.
package scenarios

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/e2e/cluster"
	"github.com/warmup-sidecar/warmup-sidecar/e2e/sidecar"
)

var (
	pinot *cluster.Cluster
	bin   string
)

func TestMain(m *testing.M) { os.Exit(run(m)) }

func run(m *testing.M) int {
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	// The cluster lives as long as ctx: no deadline here (each start-up wait has its own), or the
	// cluster would stop under the scenarios that outlast it.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	dir, err := os.MkdirTemp("", "warmup-e2e-bin")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	if bin, err = sidecar.Build(ctx, dir); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	start := time.Now()
	pinot, err = cluster.Start(ctx, cluster.Options{Logger: log, BasePort: basePort(), Hybrid: true})
	if err != nil {
		fmt.Fprintln(os.Stderr, "starting the Pinot cluster:", err)
		return 1
	}
	// Stop runs even when a test fails; a panic in a test kills the process
	// and Pdeathsig takes the JVMs with it.
	defer func() {
		if err := pinot.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, "stopping the Pinot cluster:", err)
		}
	}()
	log.Info("Pinot cluster up", "took", time.Since(start).Round(time.Second).String(), "broker", pinot.BrokerURL())
	return m.Run()
}

// basePort keeps the scenarios' cluster off the ports other harness users take:
// 23000, or WARMUP_E2E_BASE_PORT when set (several harnesses on one machine).
func basePort() int {
	if n, err := strconv.Atoi(os.Getenv("WARMUP_E2E_BASE_PORT")); err == nil && n > 0 {
		return n
	}
	return 23000
}
