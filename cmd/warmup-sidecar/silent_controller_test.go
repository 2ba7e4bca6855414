package main

import (
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/internal/fakepinot"
)

// A controller that accepts connections and never answers costs each planning
// call its own bound, not the budget: with WARMUP_TABLES set (no table list
// needed) probes flow, each leg keeps LIMIT 1 for want of a schema, the run
// ends warm on its evidence and the pod becomes Ready (fail-closed); the
// fallback names the controller, not the broker.
func TestSilentControllerWithTablesStillWarms(t *testing.T) {
	b := fakepinot.NewBroker(fakepinot.ThreeServers())
	c := fakepinot.NewController(fakepinot.ThreeServerTables()...)
	defer b.Close()
	defer c.Close()
	c.SetSilent(true)
	const budget = 15 * time.Second
	addr, logs := serveUntilReady(t, "WARMUP_BROKER_URL="+b.URL(), "WARMUP_CONTROLLER_URL="+c.URL(),
		"WARMUP_TABLES=orders", "WARMUP_FAIL_CLOSED=true", "WARMUP_BUDGET="+budget.String(), "WARMUP_PROBE_TIMEOUT=5s")
	st := status(t, addr)
	if st.Outcome != "warm" || st.Run != 1 || !strings.Contains(st.ExitReason, "latency flat") {
		t.Fatalf("run %d outcome %q (%s), want the first run warm on the evidence; logs:\n%s", st.Run, st.Outcome, st.ExitReason, logs.String())
	}
	why := st.ShapeFallbacks["orders_OFFLINE"]
	if !strings.Contains(why, "controller") || strings.Contains(why, "broker") {
		t.Errorf("fallback of orders_OFFLINE %q: want the controller named, not the broker", why)
	}
	if st.DurationSeconds >= budget.Seconds()*0.8 {
		t.Errorf("run took %.1fs of %s: the planning calls held the budget", st.DurationSeconds, budget)
	}

	// plan says the same within its own timeout.
	cmd := exec.Command(binary(t), "plan", "-timeout=20s")
	cmd.Env = cleanEnv("WARMUP_BROKER_URL="+b.URL(), "WARMUP_CONTROLLER_URL="+c.URL(), "WARMUP_TABLES=orders", "WARMUP_PROBE_TIMEOUT=2s")
	start := time.Now()
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), `query [limit1]: SELECT * FROM "orders_OFFLINE" LIMIT 1`) {
		t.Errorf("plan against a silent controller: %v\n%s", err, out)
	}
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("plan took %s against a silent controller with 2 s planning calls", took)
	}
	for _, want := range []string{"catalog: listing tables from controller", "LIMIT 1 for orders_OFFLINE: no schema: getting schema of \"orders\" from controller"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("plan output lacks %q:\n%s", want, out)
		}
	}
}
