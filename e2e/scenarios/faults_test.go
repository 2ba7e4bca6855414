//go:build e2e

package scenarios

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/e2e/cluster"
)

// Issue 6, real broker: the broker is SIGKILLed mid-warmup. The cut run ends
// failed, readiness never opens for the dead broker, and a new run warms the
// restarted one.
func TestBrokerKilledMidWarmup(t *testing.T) {
	healthyBroker(t)
	p := startSidecar(t, env(exitFloor, "WARMUP_MIN_ITERATIONS=1000", "WARMUP_BUDGET=90s"))
	deadline := time.Now().Add(60 * time.Second)
	for {
		st, _ := p.Status()
		if st.Phase == "warming" && st.ProbesSucceeded > 50 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("never warming; logs:\n%s", p.Logs())
		}
		time.Sleep(50 * time.Millisecond)
	}
	coldBroker(t, cluster.WithBrokerExtraConf())
	// Until the new run is warm, /readyz must never say 200.
	deadline = time.Now().Add(4 * time.Minute)
	for {
		ready, why := p.Ready()
		if ready {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("not ready again: %s; logs:\n%s", why, p.Logs())
		}
		time.Sleep(50 * time.Millisecond)
	}
	failed := metric(t, p, "pinot_warmup_runs_total", `outcome="failed"`)
	warm := metric(t, p, "pinot_warmup_runs_total", `outcome="warm"`)
	if failed != 1 || warm != 1 {
		t.Fatalf("runs: failed %v warm %v; want the cut run failed and one warm run after it", failed, warm)
	}
	st, _ := p.Status()
	if st.Run != 2 || st.ProbesSucceeded < 1000 {
		t.Fatalf("status after the restart: %+v", st)
	}
	t.Logf("cut run failed (%s); run 2 warm with %d probes in %.1fs", firstLine(p.Logs(), "broker went away"), st.ProbesSucceeded, st.DurationSeconds)
}

// A table QPS quota below the probe rate. Pinot 1.x answers
// /debug/tables/queryQuota/<typed table> with this broker's share: the sidecar
// reads it and paces under it, so (almost) nothing is refused. Pinot 0.11 has no
// such endpoint (404): there the sidecar learns the pace from the 429s, so the
// rounds back off instead of burning the budget, and the floor is still reached.
func TestTableQuotaBelowProbeRate(t *testing.T) {
	const qps = 20
	setQuota(t, cluster.TableServer2, fmt.Sprint(qps))
	t.Cleanup(func() {
		setQuota(t, cluster.TableServer2, "")
		coldBroker(t)
		healthyBroker(t)
	})
	coldBroker(t) // the broker reads quotas when it builds routing
	healthyBroker(t)

	p := startSidecar(t, env(exitFloor, "WARMUP_TABLES="+cluster.TableServer2, "WARMUP_CONCURRENCY=8",
		"WARMUP_MIN_ITERATIONS=150", "WARMUP_BUDGET=30s"))
	st := waitOutcome(t, p, 60*time.Second)
	rate := float64(st.ProbesSucceeded) / st.DurationSeconds
	t.Logf("quota %d qps: outcome %s, %d ok / %d failed in %.1fs (%.1f ok/s); last error %q",
		qps, st.Outcome, st.ProbesSucceeded, st.ProbesFailed, st.DurationSeconds, rate, st.LastError)
	if st.Outcome != "warm" {
		t.Fatalf("outcome %q under a %d qps quota", st.Outcome, qps)
	}
	if pinot.AtLeast1x() {
		checkQuotaPacedFromEndpoint(t, p.Logs(), st.ProbesSucceeded, st.ProbesFailed, rate, qps)
		return
	}
	if st.ProbesFailed == 0 {
		t.Fatalf("no probe was refused: the quota was not in force, the test proves nothing")
	}
	if !strings.Contains(st.LastError, "429") {
		t.Errorf("last error %q is not the quota's 429", st.LastError)
	}
	// Burning the budget would look like thousands of refusals for 150 successes.
	if st.ProbesFailed > 2*st.ProbesSucceeded {
		t.Errorf("%d refused vs %d succeeded: the budget went on 429s", st.ProbesFailed, st.ProbesSucceeded)
	}
}

// setQuota sets (or, with "", removes) the OFFLINE table's maxQueriesPerSecond.
func setQuota(t *testing.T, table, qps string) {
	t.Helper()
	c := http.Client{Timeout: 10 * time.Second}
	resp, err := c.Get(pinot.ControllerURL() + "/tables/" + table + "?type=offline")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	var wrapped map[string]map[string]any
	if err := json.Unmarshal(b, &wrapped); err != nil || wrapped["OFFLINE"] == nil {
		t.Fatalf("table config of %s: %v: %s", table, err, b)
	}
	cfg := wrapped["OFFLINE"]
	if qps == "" {
		delete(cfg, "quota")
	} else {
		cfg["quota"] = map[string]any{"maxQueriesPerSecond": qps}
	}
	body, _ := json.Marshal(cfg)
	req, _ := http.NewRequest(http.MethodPut, pinot.ControllerURL()+"/tables/"+table, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	resp, err = c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("updating %s quota to %q: HTTP %d: %s", table, qps, resp.StatusCode, b)
	}
}

// checkQuotaPacedFromEndpoint: on 1.x the broker's own quota answer sets the pace: the log names
// it, the success rate stays under the quota and refusals stay rare (a refusal can still happen
// where the broker's rate limiter and the sidecar's pacer disagree on a second's edge).
func checkQuotaPacedFromEndpoint(t *testing.T, logs string, ok, failed int64, rate float64, qps int) {
	t.Helper()
	line := firstLine(logs, "pacing probes under the table's query quota")
	if line == "" || !strings.Contains(line, fmt.Sprintf(`"quota_qps":%d`, qps)) {
		t.Errorf("the sidecar did not say it paces under the broker's %d qps quota; log line %q", qps, line)
	}
	if rate > float64(qps)*1.05 {
		t.Errorf("probes succeeded at %.1f/s, above the %d qps quota", rate, qps)
	}
	if failed*20 > ok {
		t.Errorf("%d refused vs %d succeeded: pacing from the quota endpoint should leave refusals under 5%%", failed, ok)
	}
	t.Logf("1.x quota endpoint: paced, %d refused for %d successes (%.1f ok/s under %d qps)", failed, ok, rate, qps)
}
