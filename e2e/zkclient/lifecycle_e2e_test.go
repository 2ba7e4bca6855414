//go:build e2e

package zkclient_test

import (
	"bufio"
	"errors"
	"fmt"
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
	"github.com/warmup-sidecar/warmup-sidecar/internal/fakepinot"
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
	cmd.Dir = dir // Pinot's bundled log4j2 config writes logs/ under the working dir
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

// TestClientFollowsTheExternalViewItIsGiven writes a broker resource external view into a bare
// ZooKeeper by hand, naming two fake brokers (one ONLINE, one OFFLINE), then turns the second
// ONLINE: the client must send only to ONLINE brokers, pick up the change, and its records must
// name exactly the brokers that received the queries.
func TestClientFollowsTheExternalViewItIsGiven(t *testing.T) {
	lib, err := cluster.InstallPinot(t.Context(), os.Stderr)
	if err != nil {
		t.Fatal(err)
	}
	zk := startZooKeeper(t, lib)
	b1 := fakepinot.NewBroker(fakepinot.ThreeServers())
	b2 := fakepinot.NewBroker(fakepinot.ThreeServers())
	defer b1.Close()
	defer b2.Close()
	a1, a2 := strings.TrimPrefix(b1.URL(), "http://"), strings.TrimPrefix(b2.URL(), "http://")
	ev := func(state2 string) string {
		id := func(addr string) string { return "Broker_" + strings.ReplaceAll(addr, ":", "_") }
		return fmt.Sprintf(`'{"id":"brokerResource","mapFields":{"orders_OFFLINE":{%q:"ONLINE",%q:%q}}}'`, id(a1), id(a2), state2)
	}
	zkCLI(t, lib, zk, "create /C", "create /C/EXTERNALVIEW", "create /C/EXTERNALVIEW/brokerResource "+ev("OFFLINE"))

	c, err := zkclient.Start(t.Context(), zkclient.Options{ZKAddress: zk, Cluster: "C", LibDir: lib,
		Queries: []string{"SELECT COUNT(*) FROM orders"}, QPS: 50, Logger: slog.New(slog.NewTextHandler(os.Stderr, nil))})
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * time.Second)
	zkCLI(t, lib, zk, "set /C/EXTERNALVIEW/brokerResource "+ev("ONLINE"))
	time.Sleep(3 * time.Second)
	recs, err := c.Stop()
	if err != nil {
		t.Fatal(err)
	}
	sels := c.Selections()
	both, ok := zkclient.FirstSelected(sels, a2, recs[0].Sent)
	if !ok || len(sels) < 2 || len(sels[0].Brokers) != 1 || sels[0].Brokers[0] != a1 {
		t.Fatalf("selections %+v: want [%s] first, then both", sels, a1)
	}
	// The client records a new selection a moment after its queries may already use it (once, 1
	// query of 145 sent just before the record did not go to the first broker): the last instants
	// before the record are left out of "before".
	before := zkclient.Count(recs, a1, recs[0].Sent, both.Add(-500*time.Millisecond))
	after1 := zkclient.Count(recs, a1, both, recs[len(recs)-1].Sent.Add(time.Second))
	after2 := zkclient.Count(recs, a2, both, recs[len(recs)-1].Sent.Add(time.Second))
	t.Logf("before the change: %+v; after: %s %+v, %s %+v", before, a1, after1, a2, after2)
	// Not every query need be answered: the client's first requests load its HTTP stack, seconds on
	// a busy machine, past the 2 s timeout. Where each went is the claim.
	if before.Sent == 0 || before.ToBroker != before.Sent || before.OK == 0 {
		t.Errorf("before the second broker turned ONLINE: %+v, want every query sent to %s, some answered", before, a1)
	}
	if after2.ToBroker < after1.Sent/5 || after1.ToBroker < after1.Sent/5 {
		t.Errorf("after: %d to %s, %d to %s of %d, want both picked", after1.ToBroker, a1, after2.ToBroker, a2, after1.Sent)
	}
	// Each broker received at least the queries recorded as answered by it, at most those sent to it.
	for _, b := range []struct {
		addr string
		got  int64
	}{{a1, b1.Queries()}, {a2, b2.Queries()}} {
		var sent, ok int64
		for _, r := range recs {
			if r.Broker == b.addr {
				sent++
				if r.OK() {
					ok++
				}
			}
			if r.Err != "" {
				t.Fatalf("record %+v: want an answer or a cancellation", r)
			}
		}
		if b.got < ok || b.got > sent {
			t.Errorf("%s received %d queries; the records say %d sent to it, %d answered", b.addr, b.got, sent, ok)
		}
	}
}

// zkCLI runs ZooKeeper's own CLI (from the Pinot lib dir) on cmds once it is connected; a command
// that fails fails the test.
func zkCLI(t *testing.T, lib, zk string, cmds ...string) {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), "java", "-Xmx64m", "-XX:TieredStopAtLevel=1", "-cp", filepath.Join(lib, "*"),
		"org.apache.zookeeper.ZooKeeperMain", "-server", zk)
	cmd.Dir = t.TempDir() // Pinot's bundled log4j2 config writes logs/ under the working dir
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// The CLI runs stdin's lines as soon as read, connected or not: wait for its connection.
	var out strings.Builder
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		out.WriteString(sc.Text() + "\n")
		if strings.Contains(sc.Text(), "state:SyncConnected") {
			break
		}
	}
	fmt.Fprintln(stdin, strings.Join(append(cmds, "quit"), "\n"))
	stdin.Close()
	for sc.Scan() {
		out.WriteString(sc.Text() + "\n")
	}
	if err := cmd.Wait(); err != nil || strings.Contains(out.String(), "KeeperErrorCode") || !strings.Contains(out.String(), "SyncConnected") {
		t.Fatalf("zkCli %q: %v\n%s", cmds, err, out.String())
	}
}
