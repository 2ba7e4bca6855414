package main

import (
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/internal/fakepinot"
	"github.com/warmup-sidecar/warmup-sidecar/internal/report"
)

// serveUntilReady starts serve with env and waits for /readyz 200; it returns
// the address and the logs, and stops the process when the test ends.
func serveUntilReady(t *testing.T, env ...string) (string, *syncBuf) {
	t.Helper()
	addr := freeAddr(t)
	cmd := exec.Command(binary(t))
	cmd.Env = cleanEnv(append(env, "WARMUP_LISTEN_ADDR="+addr)...)
	logs := &syncBuf{}
	cmd.Stderr = logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	// Generous: a quiet machine is ready in seconds, a saturated one (real
	// clusters running beside the tests) much later.
	deadline := time.Now().Add(60 * time.Second)
	for {
		if code, _ := httpGet("http://" + addr + "/readyz"); code == 200 {
			return addr, logs
		}
		if time.Now().After(deadline) {
			t.Fatalf("/readyz never 200; logs:\n%s", logs.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func status(t *testing.T, addr string) report.Status {
	t.Helper()
	_, body := httpGet("http://" + addr + "/status")
	var st report.Status
	if err := json.Unmarshal([]byte(body), &st); err != nil {
		t.Fatalf("/status: %v: %s", err, body)
	}
	return st
}

func TestServeConvergesOnLatencyAndAQuietJIT(t *testing.T) {
	b := fakepinot.NewBroker(fakepinot.ThreeServers())
	defer b.Close()
	addr, logs := serveUntilReady(t, "WARMUP_BROKER_URL="+b.URL(), "WARMUP_TABLES=orders",
		"WARMUP_MIN_ITERATIONS=50", "WARMUP_JVM_METRICS_URL="+b.JVMMetricsURL())
	st := status(t, addr)
	if st.Exit != "converged" || st.Outcome != "warm" {
		t.Fatalf("exit %q outcome %q (%s), want converged and warm", st.Exit, st.Outcome, st.ExitReason)
	}
	if !strings.Contains(st.ExitReason, "latency flat on limit1; JIT compile rate ") {
		t.Errorf("exit reason %q", st.ExitReason)
	}
	if len(st.Shapes) != 1 || st.Shapes[0].Shape != "limit1" || !st.Shapes[0].Converged || st.Shapes[0].Probes < 40 {
		t.Errorf("shapes %+v, want limit1 converged after ≥ 40 probes", st.Shapes)
	}
	if st.JIT == nil || !st.JIT.Quiet || st.JIT.PeakRate <= 0 || st.JIT.CompileRate > st.JIT.PeakRate/10 {
		t.Errorf("jit %+v, want quiet under a tenth of a known peak", st.JIT)
	}
	_, metrics := httpGet("http://" + addr + "/metrics")
	for _, want := range []string{`pinot_warmup_shape_latency_seconds{shape="limit1"} `, `pinot_warmup_shape_converged{shape="limit1"} 1`, "pinot_warmup_jvm_compile_rate "} {
		if !strings.Contains(metrics, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	if !strings.Contains(logs.String(), `"reason":"floor of 50 successful probes reached; latency flat`) {
		t.Errorf("the finish log does not give the reason:\n%s", logs.String())
	}
}

func TestServeIgnoresUnreachableJVMMetrics(t *testing.T) {
	b := fakepinot.NewBroker(fakepinot.ThreeServers())
	defer b.Close()
	b.SetJVMMetricsDown(true)
	addr, logs := serveUntilReady(t, "WARMUP_BROKER_URL="+b.URL(), "WARMUP_TABLES=orders",
		"WARMUP_MIN_ITERATIONS=50", "WARMUP_JVM_METRICS_URL="+b.JVMMetricsURL())
	st := status(t, addr)
	if st.Outcome != "warm" || st.JIT == nil || !strings.Contains(st.JIT.Error, "HTTP 404") {
		t.Fatalf("outcome %q jit %+v, want warm with the 404 named", st.Outcome, st.JIT)
	}
	if n := strings.Count(logs.String(), "broker JVM metrics unavailable"); n != 1 {
		t.Errorf("unavailable logged %d times, want once:\n%s", n, logs.String())
	}
	_, metrics := httpGet("http://" + addr + "/metrics")
	if strings.Contains(metrics, "pinot_warmup_jvm_compile_rate ") {
		t.Errorf("compile rate exported while unknown")
	}
}
