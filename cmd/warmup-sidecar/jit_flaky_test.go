package main

import (
	"strings"
	"testing"

	"github.com/warmup-sidecar/warmup-sidecar/internal/fakepinot"
)

// JVM metrics reads that time out now and then (the cold JVM saturated) do not
// turn the JIT signal off: the run still waits for the compiler to go quiet, and
// the pod becomes Ready on that evidence (fail-closed).
func TestServeKeepsTheJITSignalThroughTimedOutReads(t *testing.T) {
	b := fakepinot.NewBroker(fakepinot.ThreeServers())
	defer b.Close()
	b.SetJVMMetricsStall(func(read int64) bool { return read == 2 || read == 3 })
	addr, logs := serveUntilReady(t, "WARMUP_BROKER_URL="+b.URL(), "WARMUP_TABLES=orders", "WARMUP_MIN_ITERATIONS=50",
		"WARMUP_FAIL_CLOSED=true", "WARMUP_BUDGET=60s", "WARMUP_LOG_LEVEL=debug", "WARMUP_JVM_METRICS_URL="+b.JVMMetricsURL())
	st := status(t, addr)
	if st.Outcome != "warm" || !strings.Contains(st.ExitReason, "; JIT compile rate ") {
		t.Fatalf("outcome %q (%s), want warm with the JIT quiet", st.Outcome, st.ExitReason)
	}
	if st.JIT == nil || !st.JIT.Quiet || st.JIT.Ignored || st.JIT.Error != "" {
		t.Errorf("jit %+v, want quiet, not ignored, no error left", st.JIT)
	}
	if b.JVMMetricsReads() < 4 {
		t.Errorf("%d reads: the signal was not read again after the timeouts", b.JVMMetricsReads())
	}
	if strings.Contains(logs.String(), "broker JVM metrics unavailable") {
		t.Errorf("the signal was given up:\n%s", logs.String())
	}
	if n := strings.Count(logs.String(), `"msg":"broker JVM metrics reading failed: keeping the last readings"`); n != 2 {
		t.Errorf("%d failed reads logged at debug, want 2", n)
	}
}
