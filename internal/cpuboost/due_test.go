package cpuboost

import (
	"strings"
	"testing"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/pkg/prober/event"
)

func TestDue(t *testing.T) {
	s := Settings{MaxDuration: 10 * time.Minute, Settle: 2 * time.Minute}.withDefaults()
	quiet := jitView{source: true, state: event.JITState{Known: true, Quiet: true, QuietInARow: 10, Rate: 0.004, Peak: 1.6}}
	busy := jitView{source: true, state: event.JITState{Known: true, Rate: 0.9, Peak: 1.6, QuietInARow: 2}}
	failing := jitView{source: true, failing: true, why: "reading JVM metrics: connection refused", state: busy.state}
	none := jitView{why: "WARMUP_JVM_METRICS_URL is empty"}
	open := t0.Add(40 * time.Second)
	cases := []struct {
		name      string
		now       time.Time
		openSince time.Time
		jit       jitView
		want      string // a piece of the reason; "" for not due
	}{
		{"gate closed, JIT quiet", t0.Add(time.Minute), time.Time{}, quiet, ""},
		{"gate closed, maximum time", t0.Add(10 * time.Minute), time.Time{}, busy, "maximum boost time (10m0s)"},
		{"gate open, JIT compiling, settling", open.Add(2*time.Minute - time.Second), open, busy, ""},
		{"gate open, JIT compiling, settled", open.Add(2 * time.Minute), open, busy, "open for 2m0s (the settle time); the broker's JIT compiler is not quiet yet (now 0.900 s/s, peak 1.600 s/s)"},
		{"gate open, JIT compiling, maximum time", t0.Add(10 * time.Minute), open, busy, "maximum boost time"},
		{"gate open, JIT quiet", open.Add(time.Second), open, quiet, "JIT compiler is quiet: 10 readings in a row at or below 10% of its peak or 10 ms/s (now 0.004 s/s, peak 1.600 s/s)"},
		{"gate open, no JIT, settling", open.Add(2*time.Minute - time.Second), open, none, ""},
		{"gate open, no JIT, settled", open.Add(2 * time.Minute), open, none, "open for 2m0s (the settle time) and there is no JIT signal: WARMUP_JVM_METRICS_URL is empty"},
		{"gate open, JIT failing, settling", open.Add(time.Minute), open, failing, ""},
		{"gate open, JIT failing, settled", open.Add(3 * time.Minute), open, failing, "its last readings failed: reading JVM metrics: connection refused"},
	}
	for _, c := range cases {
		got := s.due(evidence{now: c.now, podStart: t0, openSince: c.openSince, jit: c.jit})
		if (c.want == "") != (got == "") || !strings.Contains(got, c.want) {
			t.Errorf("%s: due %q, want %q", c.name, got, c.want)
		}
		if got == "" && !strings.Contains(s.waiting(evidence{now: c.now, podStart: t0, openSince: c.openSince, jit: c.jit}), "the maximum boost time ends in") {
			t.Errorf("%s: waiting line lacks the maximum time", c.name)
		}
	}
}

func TestWaitingSaysWhat(t *testing.T) {
	s := Settings{MaxDuration: 10 * time.Minute, Settle: 2 * time.Minute}.withDefaults()
	open := t0.Add(time.Minute)
	for _, c := range []struct {
		ev   evidence
		want string
	}{
		{evidence{now: t0.Add(30 * time.Second), podStart: t0}, "waiting for the gate to open (the warmup to end); the maximum boost time ends in 9m30s"},
		{evidence{now: open, podStart: t0, openSince: open, jit: jitView{source: true}}, "a JIT compile rate"},
		{evidence{now: open, podStart: t0, openSince: open, jit: jitView{source: true, state: event.JITState{Known: true, Rate: 0.5, Peak: 1.5, QuietInARow: 3}}},
			"the broker's JIT compiler to be quiet: 0.500 s/s, peak 1.500 s/s, 3 of 10 quiet readings in a row (or the settle time: 2m0s left)"},
		{evidence{now: open.Add(30 * time.Second), podStart: t0, openSince: open, jit: jitView{why: "WARMUP_JVM_METRICS_URL is empty"}},
			"the settle time to pass (1m30s left; no JIT signal: WARMUP_JVM_METRICS_URL is empty)"},
	} {
		if got := s.waiting(c.ev); !strings.Contains(got, c.want) {
			t.Errorf("waiting %q, want %q", got, c.want)
		}
	}
}
