//go:build e2e

package scenarios

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/e2e/cluster"
)

// Scenario 1: /readyz is 503 while the broker is not healthy and while warming,
// 200 after; the broker's /health is 200; broker_warm is 1; outcome warm.
// Scenario 11 (measure, not assert): first-50 vs last-50 probe medians on a cold broker.
func TestWarmupGatesReadinessOnColdBroker(t *testing.T) {
	coldBroker(t, cluster.WithBrokerExtraConf())
	// The exit rule with its defaults, on the single-stage shapes: with every
	// multi-stage twin too, a cold broker on this 2-core machine takes minutes to
	// flatten every shape (TestColdMultiStageQueries... covers that engine).
	p := startSidecar(t, env("WARMUP_BUDGET=120s", "WARMUP_MULTISTAGE=off"))

	var sawBrokerDown, sawWarming bool
	deadline := time.Now().Add(4 * time.Minute)
	for {
		// Status first: a phase it reports is then at most as new as /readyz's reason.
		st, _ := p.Status()
		ready, why := p.Ready()
		health := brokerHealth()
		if ready {
			if health != 200 {
				t.Fatalf("sidecar ready while broker /health = %d", health)
			}
			break
		}
		if health != 200 {
			sawBrokerDown = true
		}
		if st.Phase == "warming" {
			sawWarming = true
			if !strings.Contains(why, "warming") {
				t.Errorf("/readyz while warming says %q", why)
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("never ready; last reason %q; logs:\n%s", why, p.Logs())
		}
		time.Sleep(50 * time.Millisecond)
	}
	if !sawBrokerDown || !sawWarming {
		t.Errorf("observed broker-not-healthy=%v warming=%v before ready; want both", sawBrokerDown, sawWarming)
	}
	st := waitOutcome(t, p, time.Second)
	if st.Outcome != "warm" || st.ProbesSucceeded < int64(st.Floor) {
		t.Fatalf("outcome %q with %d successes, want warm ≥ the default floor %d (%s)", st.Outcome, st.ProbesSucceeded, st.Floor, st.ExitReason)
	}
	if v := metric(t, p, "pinot_warmup_broker_warm"); v != 1 {
		t.Errorf("pinot_warmup_broker_warm = %v", v)
	}
	t.Logf("MEASURE scenario 11: cold broker, %d probes in %.2fs: first %d probes median %.2f ms, last %d median %.2f ms (%.1f×); %s",
		st.ProbesSucceeded, st.DurationSeconds, 50, st.FirstProbesMedianMs, 50, st.LastProbesMedianMs,
		st.FirstProbesMedianMs/st.LastProbesMedianMs, st.ExitReason)
}

// Scenario 2: the default plan covers both servers, uncovered gauge 0, and the
// broker's own query log shows the probes on every chosen table.
func TestDefaultPlanCoversBothServersAndBrokerServedProbes(t *testing.T) {
	healthyBroker(t)
	_, offset := brokerLog(t, 0)
	// Single-stage only: its query log names each probe's typed table.
	p := startSidecar(t, env(exitFloor, "WARMUP_MULTISTAGE=off", "WARMUP_MIN_ITERATIONS=300", "WARMUP_BUDGET=60s"))
	st := waitOutcome(t, p, 90*time.Second)
	if st.Outcome != "warm" {
		t.Fatalf("outcome %q", st.Outcome)
	}
	if v := metric(t, p, "pinot_warmup_uncovered_servers"); v != 0 {
		t.Errorf("uncovered servers = %v, want 0", v)
	}
	if len(st.UncoveredServers) != 0 || len(st.Tables) == 0 {
		t.Fatalf("tables %v uncovered %v", st.Tables, st.UncoveredServers)
	}
	time.Sleep(time.Second) // the query log is written after the answer
	log, _ := brokerLog(t, offset)
	total := 0
	legs := map[string]bool{}
	for _, q := range st.Queries {
		legs[regexp.MustCompile(`FROM "([^"]+)"`).FindStringSubmatch(q)[1]] = true
	}
	for leg := range legs {
		n := strings.Count(log, fmt.Sprintf("table=%s,", leg))
		if n == 0 {
			t.Errorf("broker query log shows no probe of %s", leg)
		}
		total += n
	}
	// Every probe that succeeded must appear in the broker's log (one line each).
	if int64(total) < st.ProbesSucceeded {
		t.Errorf("broker logged %d probe queries on the chosen tables, sidecar counted %d successes", total, st.ProbesSucceeded)
	}
	t.Logf("plan %v covers %v; broker logged %d probes", st.Tables, pinot.ServerInstanceIDs(), total)
}

// Scenario 4: concurrency 8 reaches the floor.
func TestConcurrencyEightReachesFloor(t *testing.T) {
	healthyBroker(t)
	p := startSidecar(t, env(exitFloor, "WARMUP_CONCURRENCY=8", "WARMUP_BUDGET=60s"))
	st := waitOutcome(t, p, 90*time.Second)
	if st.Outcome != "warm" || st.ProbesSucceeded < int64(st.Floor) {
		t.Fatalf("outcome %q with %d successes, floor %d", st.Outcome, st.ProbesSucceeded, st.Floor)
	}
	t.Logf("concurrency 8: %d probes in %.2fs", st.ProbesSucceeded, st.DurationSeconds)
}

// Scenario 6: an unreachable floor with a 5 s budget opens the gate within
// budget + 2 s with outcome budget_expired; fail-closed keeps it closed.
func TestUnreachableFloorBudgetExpires(t *testing.T) {
	healthyBroker(t)
	for _, failClosed := range []bool{false, true} {
		t.Run(fmt.Sprintf("fail_closed=%v", failClosed), func(t *testing.T) {
			p := startSidecar(t, env("WARMUP_MIN_ITERATIONS=1000000", "WARMUP_BUDGET=5s", fmt.Sprintf("WARMUP_FAIL_CLOSED=%v", failClosed)))
			// The budget starts at the broker's first /health 200: the sidecar sees
			// it within its first poll.
			start := time.Now()
			// Fail-closed starts the next run at once (and /status shows that run),
			// so the counter is what records the first run's outcome.
			deadline := time.Now().Add(10 * time.Second)
			for {
				if v, ok, _ := p.Metric("pinot_warmup_runs_total", `outcome="budget_expired"`); ok && v >= 1 {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("no budget_expired run within 10s; logs:\n%s", p.Logs())
				}
				time.Sleep(100 * time.Millisecond)
			}
			if failClosed {
				time.Sleep(2 * time.Second)
				if ready, why := p.Ready(); ready {
					t.Fatalf("fail-closed sidecar ready with an unwarm broker")
				} else {
					t.Logf("fail-closed: still not ready: %s", why)
				}
				return
			}
			waitReady(t, p, 3*time.Second)
			took := time.Since(start)
			if took > 7*time.Second {
				t.Fatalf("gate open %s after start, want within budget 5s + 2s", took)
			}
		})
	}
}

// Scenario 7: WARMUP_MAX_TABLES=1 over tables on two servers: uncovered gauge 1
// and a WARN naming the missed server.
func TestMaxTablesOneLeavesAServerUncovered(t *testing.T) {
	healthyBroker(t)
	p := startSidecar(t, env(exitFloor, "WARMUP_MIN_ITERATIONS=50", "WARMUP_MAX_TABLES=1",
		"WARMUP_TABLES="+cluster.TableServer1+","+cluster.TableServer2))
	st := waitOutcome(t, p, 60*time.Second)
	if v := metric(t, p, "pinot_warmup_uncovered_servers"); v != 1 {
		t.Fatalf("uncovered gauge = %v, want 1; status %+v", v, st)
	}
	missed := pinot.ServerInstanceIDs()[1]
	warned := false
	for _, l := range p.Lines("warmup tables do not cover every server this broker routes to") {
		warned = warned || (l["level"] == "WARN" && strings.Contains(fmt.Sprint(l["uncovered_servers"]), missed))
	}
	if !warned {
		t.Fatalf("no WARN naming %s; logs:\n%s", missed, p.Logs())
	}
}
