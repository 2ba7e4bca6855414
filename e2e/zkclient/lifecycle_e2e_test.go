//go:build e2e

package zkclient_test

import (
	"errors"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/e2e/cluster"
	"github.com/warmup-sidecar/warmup-sidecar/e2e/zkclient"
)

// TestClientLifecycleOnAnEmptyZooKeeper runs the client's whole life (compile, start, ready, the
// open-loop schedule, SIGTERM, records) against a bare ZooKeeper with no Pinot cluster in it: the
// selector then has no broker, which Connection reports as "Could not find broker" — every query
// is that error, none is sent anywhere.
func TestClientLifecycleOnAnEmptyZooKeeper(t *testing.T) {
	lib, err := cluster.InstallPinot(t.Context(), os.Stderr)
	if err != nil {
		t.Fatal(err)
	}
	zk := startZooKeeper(t, lib)
	c, err := zkclient.Start(t.Context(), zkclient.Options{ZKAddress: zk, Cluster: "NoSuchCluster", LibDir: lib,
		Queries: []string{"SELECT COUNT(*) FROM a", "SELECT * FROM b LIMIT 1"}, QPS: 50,
		Logger: slog.New(slog.NewTextHandler(os.Stderr, nil))})
	if err != nil {
		t.Fatal(err)
	}
	pid := c.PID()
	time.Sleep(2 * time.Second)
	recs, err := c.Stop()
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("client JVM %d still there after Stop (kill 0: %v)", pid, err)
	}
	// 2 s at 50/s, with the machine's scheduling slack either way.
	if len(recs) < 60 || len(recs) > 140 {
		t.Errorf("%d records in 2 s at 50 QPS, want about 100", len(recs))
	}
	for i, r := range recs {
		if r.Index != i || r.Broker != "" || r.Cancelled || !strings.HasPrefix(r.Err, "no broker") {
			t.Fatalf("record %d: %+v, want arrival %d failing with no broker", i, r, i)
		}
	}
	if sels := c.Selections(); len(sels) != 1 || len(sels[0].Brokers) != 0 {
		t.Errorf("selections %+v, want one empty list", sels)
	}
}

// startZooKeeper runs a standalone ZooKeeper from the Pinot lib dir on a free loopback port.
func startZooKeeper(t *testing.T, lib string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	dir := t.TempDir()
	cfg := filepath.Join(dir, "zoo.cfg")
	if err := os.WriteFile(cfg, []byte("tickTime=2000\ndataDir="+filepath.Join(dir, "data")+
		"\nclientPort="+strconv.Itoa(port)+"\nclientPortAddress=127.0.0.1\nadmin.enableServer=false\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("java", "-Xmx128m", "-XX:+UseSerialGC", "-cp", filepath.Join(lib, "*"),
		"org.apache.zookeeper.server.quorum.QuorumPeerMain", cfg)
	log, err := os.Create(filepath.Join(dir, "zookeeper.log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
		log.Close()
	})
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	waitFor(t, 2*time.Minute, "ZooKeeper on "+addr, func() bool {
		conn, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			conn.Close()
		}
		return err == nil
	})
	return addr
}
