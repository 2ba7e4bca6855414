//go:build e2e

package scenarios

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/e2e/cluster"
	"github.com/warmup-sidecar/warmup-sidecar/e2e/coldstart"
	"github.com/warmup-sidecar/warmup-sidecar/e2e/sidecar"
	"github.com/warmup-sidecar/warmup-sidecar/internal/aotlog"
	"github.com/warmup-sidecar/warmup-sidecar/internal/report"
)

// TestSidecarReportsTheBrokersAOTCache runs the broker on a real JDK 25 the way the chart's
// brokerJvm.aotCache opt-in does (-XX:AOTCacheOutput to train, -XX:AOTCache to use, the JVM's
// -Xlog:aot file read by the sidecar through WARMUP_BROKER_AOT_LOG) and checks what one running
// sidecar reports at each broker start: training; used (the cache the training broker wrote at its
// SIGTERM exit); rejected (that cache cut short, as a half-written volume would leave it); absent (a
// key with no file, as after an image change). Every run still ends warm: the cache never holds the
// gate. The JDK is WARMUP_E2E_BROKER_JAVA (a JDK home or its bin/java), else a JDK 25+ found in
// /usr/lib/jvm; without one the test skips.
func TestSidecarReportsTheBrokersAOTCache(t *testing.T) {
	java := jdk25(t)
	dir := t.TempDir()
	aotLog := filepath.Join(dir, "aot.log")
	xlog := "-Xlog:aot=info,cds=info:file=" + aotLog // what the chart appends to JAVA_OPTS
	cache := filepath.Join(dir, "broker.aot")

	// The broker goes back to the cluster's JDK and options for the scenarios after this one.
	t.Cleanup(func() {
		coldBroker(t, cluster.WithBrokerJava(""), cluster.WithBrokerJVMOpts())
		healthyBroker(t)
	})
	coldBroker(t, cluster.WithBrokerJava(java), cluster.WithBrokerJVMOpts("-XX:AOTCacheOutput="+cache, xlog))
	p := startSidecar(t, env(exitFloor, "WARMUP_MIN_ITERATIONS=300", "WARMUP_BUDGET=60s", "WARMUP_BROKER_AOT_LOG="+aotLog))
	expectAOT(t, p, 1, "training", "AOTCacheOutput")

	// The training JVM writes the cache as it exits: a kubelet's SIGTERM, a generous grace.
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	defer cancel()
	stop := time.Now()
	if err := pinot.Broker(0).Terminate(ctx, 5*time.Minute); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(cache)
	if err != nil || fi.Size() == 0 {
		t.Fatalf("no AOT cache after the training broker's exit (%s after SIGTERM): %v", time.Since(stop).Round(time.Second), err)
	}
	t.Logf("AOT cache: %d bytes, written %s after SIGTERM", fi.Size(), time.Since(stop).Round(time.Second))

	if err := pinot.StartBroker(ctx, cluster.WithBrokerJVMOpts("-XX:AOTCache="+cache, xlog)); err != nil {
		t.Fatal(err)
	}
	expectAOT(t, p, 2, "used", "Opened AOT cache")

	cut := filepath.Join(dir, "cut.aot")
	b, err := os.ReadFile(cache)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cut, b[:len(b)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	coldBroker(t, cluster.WithBrokerJVMOpts("-XX:AOTCache="+cut, xlog))
	expectAOT(t, p, 3, "rejected", "The AOT cache has been truncated")

	coldBroker(t, cluster.WithBrokerJVMOpts("-XX:AOTCache="+filepath.Join(dir, "another-image.aot"), xlog))
	expectAOT(t, p, 4, "absent", "not found")
}

// expectAOT waits for run n to end warm and checks that /status, the state gauge and the log line
// of that broker start all say state, with the JVM's own line containing evidence.
func expectAOT(t *testing.T, p *sidecar.Proc, n int, state, evidence string) {
	t.Helper()
	deadline := time.Now().Add(4 * time.Minute)
	for {
		st, err := p.Status()
		if err == nil && st.Run == n && st.Outcome != "" {
			if st.Outcome != "warm" {
				t.Fatalf("run %d ended %s with the broker's AOT cache %s, want warm: the cache must never hold the gate", n, st.Outcome, state)
			}
			a := st.BrokerAOTCache
			if a == nil || a.State != state {
				t.Fatalf("run %d: /status broker_aot_cache = %+v, want state %s; logs:\n%s", n, a, state, p.Logs())
			}
			if !strings.Contains(strings.Join(a.Evidence, "\n"), evidence) {
				t.Errorf("run %d: evidence %q has no line with %q", n, a.Evidence, evidence)
			}
			t.Logf("run %d: broker AOT cache %s: %q", n, a.State, a.Evidence)
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("run %d had no outcome in 4 min; status %+v, err %v; logs:\n%s", n, st, err, p.Logs())
		}
		time.Sleep(200 * time.Millisecond)
	}
	for _, s := range append(slices.Clone(aotlog.States), report.AOTUnreadable) {
		want := 0.0
		if s == state {
			want = 1
		}
		if v := metric(t, p, "pinot_warmup_broker_aot_cache", `state="`+s+`"`); v != want {
			t.Errorf("run %d: pinot_warmup_broker_aot_cache{state=%q} = %v, want %v", n, s, v, want)
		}
	}
	lines := p.Lines("broker AOT cache")
	if len(lines) != n {
		t.Errorf("run %d: the sidecar logged %d 'broker AOT cache' lines, want one per broker start (%d)", n, len(lines), n)
	} else if last := lines[n-1]; last["state"] != state {
		t.Errorf("run %d: the last 'broker AOT cache' line is %v, want state %s", n, last, state)
	}
}

// jdk25 is the java executable of a JDK 25+ for the broker, or skips the test.
func jdk25(t *testing.T) string {
	t.Helper()
	java, err := coldstart.FindJDK(t.Context(), 25)
	if err != nil {
		t.Fatal(err)
	}
	if java == "" {
		t.Skip("no JDK 25+ for the broker: set " + coldstart.BrokerJavaEnv + " to one (none in /usr/lib/jvm)")
	}
	if jdk, err := coldstart.ReadJDK(t.Context(), java); err == nil {
		t.Logf("broker JDK %s: %s", java, jdk.Version)
	}
	return java
}
