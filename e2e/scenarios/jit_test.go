//go:build e2e

package scenarios

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/e2e/cluster"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/jvmmetrics"
)

// Issue 10 §2: a cold broker running the Prometheus JMX exporter java agent (from Maven
// Central, as Pinot's image ships it). The sidecar reads the JVM's cumulative JIT compile time
// there: the probes make the JVM compile (the counter grows during the run) and the rate falls
// from its peak. The run is warm only once the rate is down to a tenth of its peak; on 2 shared
// cores the compiler often stays busier than that for the whole 60 s budget, and the run then
// ends budget_expired naming the JIT.
func TestJITCompileRateFallsAsTheBrokerWarms(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	jar, err := cluster.InstallJMXAgent(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	opts, err := pinot.BrokerJMXAgentOpts(jar)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { // later scenarios get the broker without the agent
		coldBroker(t, cluster.WithBrokerJVMOpts())
		healthyBroker(t)
	})
	coldBroker(t, cluster.WithBrokerJVMOpts(opts...))
	agent := &jvmmetrics.Scraper{URL: pinot.BrokerCompileTimeURL()}
	before := compileTimeWhenUp(t, agent)

	p := startSidecar(t, env("WARMUP_BUDGET=60s", "WARMUP_JVM_METRICS_URL="+agent.URL))
	st := waitOutcome(t, p, 4*time.Minute)
	after, err := agent.CompileTime(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.JIT == nil || st.JIT.Error != "" || !st.JIT.Known {
		t.Fatalf("JIT signal %+v: the agent's series was not read; logs:\n%s", st.JIT, p.Logs())
	}
	t.Logf("MEASURE JIT: outcome %s in %.2fs, %d probes; compile time %s → %s; rate peak %.3f s/s, last %.4f s/s; %s",
		st.Outcome, st.DurationSeconds, st.ProbesSucceeded, before, after, st.JIT.PeakRate, st.JIT.CompileRate, st.ExitReason)
	if after <= before {
		t.Errorf("compile time %s → %s: the probes made the JVM compile nothing", before, after)
	}
	// The signal must be live: the rate fell from its peak while the probes ran.
	if st.JIT.PeakRate <= 0 || st.JIT.CompileRate >= st.JIT.PeakRate {
		t.Errorf("compile rate %.4f s/s against a peak of %.3f s/s: never fell", st.JIT.CompileRate, st.JIT.PeakRate)
	}
	if v := metric(t, p, "pinot_warmup_jvm_compile_rate"); v < 0 {
		t.Errorf("pinot_warmup_jvm_compile_rate = %v", v)
	}
	switch st.Outcome {
	case "warm": // the JIT went quiet within the budget: the rule held the gate until then
		if !st.JIT.Quiet || !strings.Contains(st.ExitReason, "JIT compile rate") {
			t.Errorf("warm with jit %+v, reason %q: want a quiet JIT named in the reason", st.JIT, st.ExitReason)
		}
		if st.JIT.CompileRate > st.JIT.PeakRate/10 && st.JIT.CompileRate > 0.01 {
			t.Errorf("warm at %.4f s/s, above a tenth of the %.3f s/s peak and the 0.01 floor", st.JIT.CompileRate, st.JIT.PeakRate)
		}
		for _, sh := range st.Shapes {
			if !sh.Converged {
				t.Errorf("shape %+v not converged in a warm run", sh)
			}
		}
	case "budget_expired": // a JVM still compiling held the gate to the budget, and says so
		if !st.JIT.Quiet && !strings.Contains(st.ExitReason, "JIT still compiling") {
			t.Errorf("budget ran out with the JIT loud, but the reason %q does not say so", st.ExitReason)
		}
	default:
		t.Fatalf("outcome %q: %s", st.Outcome, st.ExitReason)
	}
}

// compileTimeWhenUp reads the agent once the restarted JVM serves it.
func compileTimeWhenUp(t *testing.T, agent *jvmmetrics.Scraper) time.Duration {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		d, err := agent.CompileTime(ctx)
		cancel()
		if err == nil {
			return d
		}
		if time.Now().After(deadline) {
			t.Fatalf("JMX exporter agent never answered: %v", err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
