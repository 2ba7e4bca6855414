package report

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/warmup-sidecar/warmup-sidecar/pkg/gatehttp"
)

// Each Set is /status's broker_cpu_boost, the gauge on its state, and a log line when the
// state or its reason changes (not for the evidence line that changes every second).
func TestCPUBoostReport(t *testing.T) {
	reg := prometheus.NewRegistry()
	board := NewStatusBoard(true, 1, time.Second, time.Now)
	var logs bytes.Buffer
	r, err := NewCPUBoostReport(board, reg, slog.New(slog.NewJSONHandler(&logs, nil)))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range CPUBoostStates {
		if v := testutil.ToFloat64(r.state.WithLabelValues(s)); v != 0 {
			t.Errorf("before any Set: %s = %v", s, v)
		}
	}
	t0 := time.Date(2026, 12, 4, 10, 0, 0, 0, time.UTC)
	st := CPUBoostStatus{State: CPUBoostBoosted, Since: t0, Reason: "boosted at start", Container: "broker",
		Target: CPUBoostCPU{Request: "1", Limit: "2"}, Spec: &CPUBoostCPU{Request: "2", Limit: "4"}, WaitingFor: "the gate to open"}
	r.Set(st)
	st.WaitingFor = "the JIT to be quiet"
	r.Set(st)
	st.Spec.Limit = "mutated after Set" // the board keeps its own copy
	r.Set(CPUBoostStatus{State: CPUBoostGivingBack, Since: t0.Add(time.Minute), Reason: "resize attempt 1 of 10 failed, next in 1s", LastError: "HTTP 503"})
	r.Set(CPUBoostStatus{State: CPUBoostFailed, Since: t0.Add(2 * time.Minute), Reason: "no permission", GiveBackBecause: "the JIT is quiet"})
	if v := testutil.ToFloat64(r.state.WithLabelValues(CPUBoostFailed)); v != 1 {
		t.Errorf("failed = %v", v)
	}
	if v := testutil.ToFloat64(r.state.WithLabelValues(CPUBoostBoosted)); v != 0 {
		t.Errorf("boosted = %v after leaving it", v)
	}
	lines := strings.Split(strings.TrimSpace(logs.String()), "\n")
	if len(lines) != 3 {
		t.Fatalf("%d log lines, want 3 (one per state or reason change):\n%s", len(lines), logs.String())
	}
	for i, want := range []string{`"level":"INFO","msg":"broker CPU boost","state":"boosted"`, `"level":"WARN","msg":"broker CPU boost","state":"giving_back"`,
		`"level":"WARN","msg":"broker CPU boost","state":"failed","reason":"no permission","give_back_because":"the JIT is quiet"`} {
		if !strings.Contains(lines[i], want) {
			t.Errorf("line %d %s, want %s", i, lines[i], want)
		}
	}
	b, _ := json.Marshal(board.Snapshot(gatehttp.NewGate(nil)))
	if !strings.Contains(string(b), `"broker_cpu_boost":{"state":"failed","since":"2026-12-04T10:02:00Z","reason":"no permission","give_back_because":"the JIT is quiet"}`) {
		t.Errorf("/status: %s", b)
	}
}

// The board keeps the boost across runs, and a Set's pointers are its own.
func TestCPUBoostOutlivesRuns(t *testing.T) {
	board := NewStatusBoard(true, 1, time.Second, time.Now)
	r, err := NewCPUBoostReport(board, prometheus.NewRegistry(), slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	spec := &CPUBoostCPU{Limit: "4"}
	r.Set(CPUBoostStatus{State: CPUBoostBoosted, Spec: spec})
	spec.Limit = "changed"
	board.StartRun(time.Now(), time.Now().Add(time.Second))
	s := board.Snapshot(gatehttp.NewGate(nil))
	if s.BrokerCPUBoost == nil || s.BrokerCPUBoost.State != CPUBoostBoosted || s.BrokerCPUBoost.Spec.Limit != "4" {
		t.Errorf("after a new run: %+v", s.BrokerCPUBoost)
	}
}
