package rollout

import (
	"testing"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/e2e/coldstart"
)

var t0 = time.Date(2026, 12, 3, 7, 0, 0, 0, time.UTC)

func ev(s float64, pod int, k Kind) Event {
	return Event{At: t0.Add(time.Duration(s * float64(time.Second))), Pod: pod, Broker: []string{"b0", "b1"}[pod], Kind: k}
}

// A two-pod rollout: pod 1 deleted at 10 s, exits at 21 s, re-created at 21 s, healthy at 40 s,
// Ready at 81 s; then pod 0 the same 90 s later.
var rolloutEvents = []Event{
	ev(0, 0, KindCreated), ev(0, 0, KindHealthy), ev(0, 0, KindReady),
	ev(0, 1, KindCreated), ev(0, 1, KindHealthy), ev(0, 1, KindReady),
	ev(10, 1, KindDeleted), ev(11, 1, KindOutOfService), ev(21, 1, KindExited),
	ev(21, 1, KindCreated), ev(40, 1, KindHealthy), ev(81, 1, KindReady), ev(82, 1, KindInService),
	ev(100, 0, KindDeleted), ev(101, 0, KindOutOfService), ev(111, 0, KindExited),
	ev(111, 0, KindCreated), ev(130, 0, KindHealthy), ev(171, 0, KindReady), ev(172, 0, KindInService),
}

var rolloutBounds = Bounds{
	Steady:  coldstart.Window{Start: 0, End: 10 * time.Second},
	Rollout: coldstart.Window{Start: 10 * time.Second, End: 200 * time.Second},
	Done:    171 * time.Second,
}

func TestFailuresAreAttributedToThePodAndPhase(t *testing.T) {
	rec := func(s float64, o coldstart.Outcome) coldstart.Record {
		d := time.Duration(s * float64(time.Second))
		return coldstart.Record{Scheduled: d, Sent: d, Outcome: o}
	}
	tr := &coldstart.Trace{Start: t0, Timeout: 2 * time.Second, Records: []coldstart.Record{
		rec(5, coldstart.OutcomeError),      // steady: not in the rollout window
		rec(10.5, coldstart.OutcomeError),   // pod 1 shutting down
		rec(22.5, coldstart.OutcomeError),   // exit + timeout: still pod 1's shutdown
		rec(83, coldstart.OutcomeCancelled), // pod 1's start (cold in service)
		rec(83, coldstart.OutcomeOK),
		rec(105, coldstart.OutcomeCancelled), // pod 0 shutting down
		rec(175, coldstart.OutcomeCancelled), // pod 0's start
		rec(176, coldstart.OutcomeCancelled),
	}}
	segs := segments(rolloutEvents, t0, rolloutBounds, tr.Timeout)
	got := map[[2]any][2]int{}
	for _, p := range phaseCounts(tr, segs, rolloutBounds) {
		got[[2]any{p.Pod, p.Phase}] = [2]int{p.Failed, p.Cancelled}
	}
	want := map[[2]any][2]int{
		{1, PhaseShutdown}: {2, 0},
		{1, PhaseStart}:    {0, 1},
		{0, PhaseShutdown}: {0, 1},
		{0, PhaseStart}:    {0, 2},
	}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%v: %v, want %v", k, got[k], w)
		}
	}
}

func TestPodTimesAndStates(t *testing.T) {
	pods := podTimes(rolloutEvents, t0, rolloutBounds)
	if len(pods) != 2 || pods[0].Pod != 1 || pods[1].Pod != 0 {
		t.Fatalf("pods %+v", pods)
	}
	p := pods[0]
	if p.TerminateSeconds != 11 || p.HealthySeconds != 19 || p.ReadySeconds != 60 || p.InServiceSeconds != 61 || p.Killed {
		t.Errorf("pod 1 times %+v", p)
	}
	for _, tc := range []struct {
		at   float64
		want State
	}{{5, StateReady}, {15, StateTerminating}, {21.5, StateStarting}, {50, StateWarming}, {90, StateReady}} {
		if got := StateAt(rolloutEvents, "b1", t0.Add(time.Duration(tc.at*float64(time.Second)))); got != tc.want {
			t.Errorf("pod 1 at %.1f s: %s, want %s", tc.at, got, tc.want)
		}
	}
	var spans []StateSpan
	for _, s := range stateSpans(rolloutEvents, t0, 200*time.Second) {
		if s.Pod == 1 {
			spans = append(spans, s)
		}
	}
	want := []StateSpan{{1, "b1", StateReady, 0, 10}, {1, "b1", StateTerminating, 10, 21}, {1, "b1", StateStarting, 21, 40},
		{1, "b1", StateWarming, 40, 81}, {1, "b1", StateReady, 81, 200}}
	if len(spans) != len(want) {
		t.Fatalf("pod 1 spans %+v", spans)
	}
	for i := range want {
		if spans[i] != want[i] {
			t.Errorf("span %d: %+v, want %+v", i, spans[i], want[i])
		}
	}
}

func TestWorstP99IsTheWorstTenSeconds(t *testing.T) {
	var recs []coldstart.Record
	for i := range 300 { // 10/s for 30 s: 5 ms, but 800 ms for [12 s, 14 s)
		s := time.Duration(i) * 100 * time.Millisecond
		lat := 5 * time.Millisecond
		if s >= 12*time.Second && s < 14*time.Second {
			lat = 800 * time.Millisecond
		}
		recs = append(recs, coldstart.Record{Scheduled: s, Sent: s, Latency: lat, Outcome: coldstart.OutcomeOK})
	}
	tr := &coldstart.Trace{Start: t0, Timeout: 2 * time.Second, Records: recs}
	p99, at := worstP99(tr, coldstart.Window{Start: 0, End: 30 * time.Second})
	if p99 != 800 || at < 3*time.Second || at > 13*time.Second {
		t.Errorf("worst 10 s p99 %.0f ms at %s, want 800 ms in a window holding [12 s, 14 s)", p99, at)
	}
}
