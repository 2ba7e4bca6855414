//go:build e2e

package scenarios

import (
	"testing"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/e2e/cluster"
)

// Scenario 8: the broker is SIGKILLed and restarted under a running sidecar:
// /readyz drops to 503 and returns to 200 only after a new warm run.
func TestRearmAfterBrokerRestart(t *testing.T) {
	healthyBroker(t)
	p := startSidecar(t, env(exitFloor, "WARMUP_MIN_ITERATIONS=300", "WARMUP_BUDGET=60s"))
	waitReady(t, p, 90*time.Second)
	if v := metric(t, p, "pinot_warmup_runs_total", `outcome="warm"`); v != 1 {
		t.Fatalf("runs{warm} = %v before the restart", v)
	}

	coldBroker(t, cluster.WithBrokerExtraConf())
	dropped := time.Now()
	for {
		if ready, _ := p.Ready(); !ready {
			break
		}
		if time.Since(dropped) > 3*time.Second {
			t.Fatal("/readyz still 200 3s after the broker was killed")
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Logf("/readyz dropped %s after SIGKILL", time.Since(dropped).Round(time.Millisecond))

	// Every 200 seen from now on must come after the second warm run finished.
	deadline := time.Now().Add(4 * time.Minute)
	for {
		ready, why := p.Ready()
		if ready {
			if v := metric(t, p, "pinot_warmup_runs_total", `outcome="warm"`); v != 2 {
				t.Fatalf("ready again with runs{warm} = %v, want 2 (a new warm run)", v)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("not ready again: %s; logs:\n%s", why, p.Logs())
		}
		time.Sleep(50 * time.Millisecond)
	}
	st, _ := p.Status()
	if st.Run != 2 || st.Outcome != "warm" || st.ProbesSucceeded < 300 {
		t.Fatalf("status after re-arm: %+v", st)
	}
}
