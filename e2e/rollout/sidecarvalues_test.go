package rollout

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

// The sidecar's variables become the chart values an operator sets, typed by the chart's schema.
func TestSidecarEnvBecomesTheChartsWarmupValues(t *testing.T) {
	got, err := sidecarValues(map[string]string{
		"WARMUP_BUDGET": "40s", "WARMUP_CONCURRENCY": "1", "WARMUP_FAIL_CLOSED": "true",
		"WARMUP_CONVERGE_TOLERANCE": "0.3", "WARMUP_QUERY": "SELECT 1;SELECT 2", "WARMUP_TABLES": "a,b",
		"WARMUP_CONTROLLER_URL": "http://c:9000",
	})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"budget": "40s", "concurrency": 1, "failClosed": true, "convergeTolerance": 0.3,
		"queries": []string{"SELECT 1", "SELECT 2"}, "tables": []string{"a", "b"}, "controllerUrl": "http://c:9000"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("values %#v, want %#v", got, want)
	}
	for env, msg := range map[string]string{
		"WARMUP_LISTEN_ADDR=:1": "WARMUP_LISTEN_ADDR: not a setting the sidecar chart takes",
		"WARMUP_NOPE=1":         "WARMUP_NOPE: not a setting",
		"WARMUP_CONCURRENCY=x":  `WARMUP_CONCURRENCY="x": warmup.concurrency wants a value of type integer`,
	} {
		k, v, _ := strings.Cut(env, "=")
		if _, err := sidecarValues(map[string]string{k: v}); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("%s: %v, want an error with %q", env, err, msg)
		}
	}
}

// on_boost's settle is the chart's, and the Method says it; a study from before it was recorded
// keeps the older wording.
func TestBoostClauseSaysTheChartsSettle(t *testing.T) {
	settle, err := chartBoostSettle()
	if err != nil {
		t.Fatal(err)
	}
	if d, err := time.ParseDuration(settle); err != nil || d <= 0 {
		t.Fatalf("chart's brokerCpuBoost.settle %q: want a positive duration (%v)", settle, err)
	}
	s := &Study{BoostCPULimit: "1", BoostFixedHoldS: 60, BoostSettle: settle, Arms: map[string]*Arm{ArmOnBoost: {}}}
	if got := boostClause(s); !strings.Contains(got, "the chart's settle of "+settle+" after the gate opened, whichever first") {
		t.Errorf("method %q lacks the settle %s", got, settle)
	}
	s.BoostSettle = ""
	if got := boostClause(s); !strings.Contains(got, "the settle time after the gate opened, without") {
		t.Errorf("method of an older study %q", got)
	}
}

// The Method names on_boost_compilers' count when the study has that arm, and only then.
func TestCompilersClauseNamesTheCount(t *testing.T) {
	s := &Study{BoostCPULimit: "1", BoostFixedHoldS: 60, BoostSettle: "1m0s", BoostCompilers: 4, Arms: map[string]*Arm{ArmOnBoostCompilers: {}}}
	if got := boostClause(s); !strings.Contains(got, "on_boost_compilers is on_boost with -XX:CICompilerCount=4 added") {
		t.Errorf("method %q lacks the compiler count", got)
	}
	s.BoostCompilers, s.Arms = 0, map[string]*Arm{ArmOnBoost: {}}
	if got := boostClause(s); strings.Contains(got, "on_boost_compilers") {
		t.Errorf("method %q names an arm the study did not run", got)
	}
}

// The Method names on_boost_gentle's concurrency when the study ran that arm, and only then.
func TestGentleClauseNamesTheConcurrency(t *testing.T) {
	s := &Study{BoostCPULimit: "1", BoostFixedHoldS: 60, BoostSettle: "1m0s", GentleConcurrency: 1, Arms: map[string]*Arm{ArmOnBoostGentle: {}}}
	if got := boostClause(s); !strings.Contains(got, "on_boost_gentle is on_boost with the sidecar's warmup.concurrency 1") {
		t.Errorf("method %q lacks the gentle arm's concurrency", got)
	}
	if got := gentleConcurrency(Config{Arms: []string{ArmOnBoost}, GentleConcurrency: 1}); got != 0 {
		t.Errorf("a study without on_boost_gentle records concurrency %d, want 0", got)
	}
	s.GentleConcurrency, s.Arms = 0, map[string]*Arm{ArmOnBoost: {}}
	if got := boostClause(s); strings.Contains(got, "on_boost_gentle") {
		t.Errorf("method %q names an arm the study did not run", got)
	}
}
