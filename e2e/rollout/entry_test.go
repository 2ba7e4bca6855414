package rollout

import (
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/e2e/coldstart"
)

// onEvents is rolloutEvents with a sidecar on each pod: warm 15 s after healthy.
func onEvents() []Event {
	out := append(slices.Clone(rolloutEvents), ev(55, 1, KindWarm), ev(145, 0, KindWarm))
	slices.SortStableFunc(out, func(a, b Event) int { return a.At.Compare(b.At) })
	return out
}

// causeTrace is 10 queries a second for 200 s at 5 ms, but 500 ms in [25 s, 30 s) (pod 1's JVM
// start, a neighbour's cost) and 300 ms in [82 s, 84 s) (pod 1's first seconds in service).
func causeTrace() *coldstart.Trace {
	return slowTrace(slow{25, 30, 500 * time.Millisecond}, slow{82, 84, 300 * time.Millisecond})
}

// slow is a span of a trace's load clock [from, to) s whose queries took lat.
type slow struct {
	from, to float64
	lat      time.Duration
}

// slowTrace is 10 queries a second for 200 s at 5 ms, but each span's latency in it.
func slowTrace(spans ...slow) *coldstart.Trace {
	var recs []coldstart.Record
	for i := range 2000 {
		s := time.Duration(i) * 100 * time.Millisecond
		lat := 5 * time.Millisecond
		for _, sp := range spans {
			if s >= time.Duration(sp.from*float64(time.Second)) && s < time.Duration(sp.to*float64(time.Second)) {
				lat = sp.lat
			}
		}
		recs = append(recs, coldstart.Record{Scheduled: s, Sent: s, Latency: lat, Outcome: coldstart.OutcomeOK})
	}
	return &coldstart.Trace{Start: t0, Rate: 10, Timeout: 2 * time.Second, Records: recs}
}

func TestBusySpansAreEachPodsStartAndItsSidecarsProbes(t *testing.T) {
	sec := func(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }
	for _, tc := range []struct {
		name   string
		events []Event
		want   []busySpan
	}{
		{"no sidecar: created → healthy", rolloutEvents, []busySpan{{1, sec(21), sec(40), false}, {0, sec(111), sec(130), false}}},
		{"sidecar: created → healthy, then healthy → warm", onEvents(), []busySpan{
			{1, sec(21), sec(40), false}, {1, sec(40), sec(55), true}, {0, sec(111), sec(130), false}, {0, sec(130), sec(145), true}}},
		{"never healthy: to the end", []Event{ev(10, 1, KindCreated), ev(30, 1, KindDeleted)}, []busySpan{{1, sec(10), sec(200), false}}},
		{"healthy only in a later life", []Event{ev(10, 1, KindCreated), ev(20, 1, KindDeleted), ev(25, 1, KindCreated), ev(40, 1, KindHealthy)},
			[]busySpan{{1, sec(10), sec(200), false}, {1, sec(25), sec(40), false}}},
		{"warm only in a later life", []Event{ev(10, 1, KindCreated), ev(20, 1, KindHealthy), ev(25, 1, KindCreated), ev(40, 1, KindHealthy), ev(50, 1, KindWarm)},
			[]busySpan{{1, sec(10), sec(20), false}, {1, sec(25), sec(40), false}, {1, sec(40), sec(50), true}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []busySpan
			for _, s := range busySpans(tc.events, t0, 200*time.Second) {
				if s.from > 0 { // the initial pods' creation at 0 is no rollout's
					got = append(got, s)
				}
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("busy spans %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestEntriesMeasureEachPodsFirstSecondsInService(t *testing.T) {
	tr := causeTrace()
	got := entries(tr, rolloutEvents, KindInService, busySpans(rolloutEvents, t0, rolloutBounds.Rollout.End), rolloutBounds, 5)
	want := []Entry{{Pod: 1, Queries: 100, P99Ms: 300, Ratio: 60}, {Pod: 0, Queries: 100, P99Ms: 5, Ratio: 1}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("entries %+v, want %+v", got, want)
	}
	// Pod 0 created 3 s after pod 1 entered: pod 1's entry shares the cores with its start.
	early := slices.Clone(rolloutEvents)
	for i := range early {
		if early[i].Pod == 0 && early[i].At.After(t0.Add(50*time.Second)) {
			early[i].At = early[i].At.Add(-26 * time.Second) // deleted 74, created 85
		}
	}
	slices.SortStableFunc(early, func(a, b Event) int { return a.At.Compare(b.At) })
	if got := entries(tr, early, KindInService, busySpans(early, t0, rolloutBounds.Rollout.End), rolloutBounds, 5); len(got) != 2 || !got[0].Busy || got[1].Busy {
		t.Errorf("entries %+v: want pod 1's busy (pod 0 created during it), pod 0's not", got)
	}
}

// The give-back's window is the load's EntrySpan after the pod's CPU fell, measured like an
// entry: pod 1's at 80 s holds its entry's slow 2 s, pod 0's at 190 s is cut at the load's end.
func TestGiveBacksMeasureTheSecondsAfterTheCPUFell(t *testing.T) {
	tr := causeTrace()
	evs := append(slices.Clone(rolloutEvents), ev(80, 1, KindBoostEnded), ev(190, 0, KindBoostEnded), ev(5, 0, KindBoostEnded))
	slices.SortStableFunc(evs, func(a, b Event) int { return a.At.Compare(b.At) })
	got := entries(tr, evs, KindBoostEnded, busySpans(evs, t0, rolloutBounds.Rollout.End), rolloutBounds, 5)
	want := []Entry{{Pod: 1, Queries: 100, P99Ms: 300, Ratio: 60}, {Pod: 0, Queries: 100, P99Ms: 5, Ratio: 1}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("give-backs %+v, want %+v (the one at 5 s is before the rollout)", got, want)
	}
}

func TestQuietWindowsLeaveANeighboursStartOut(t *testing.T) {
	tr := causeTrace()
	if p99, _ := worstP99(tr, rolloutBounds.Rollout); p99 != 500 {
		t.Fatalf("worst 10 s p99 %.0f, want the neighbour's 500 ms", p99)
	}
	p99, at, ok := worstQuietP99(tr, busySpans(rolloutEvents, t0, rolloutBounds.Rollout.End), rolloutBounds.Rollout)
	if !ok || p99 != 300 || at < 73*time.Second || at > 83*time.Second {
		t.Errorf("quiet worst 10 s p99 %.0f ms at %s (ok %v), want 300 ms from a window holding [82 s, 84 s)", p99, at, ok)
	}
	// Busy the whole time: no quiet window.
	all := []Event{ev(0, 1, KindCreated)}
	if _, _, ok := worstQuietP99(tr, busySpans(all, t0, rolloutBounds.Rollout.End), rolloutBounds.Rollout); ok {
		t.Error("a rollout with a pod starting throughout has no quiet window")
	}
}

func TestRemeasureAddsTheSplitFromTheRawTraces(t *testing.T) {
	tr, events := causeTrace(), onEvents()
	res := summarise("on_default", 1, "rollout", tr, events, rolloutBounds)
	want := *res
	if len(want.Entries) != 2 || want.QuietWorst10sRatio == 0 {
		t.Fatalf("summarise gave no split: %+v %v", want.Entries, want.QuietWorst10sRatio)
	}
	if want.NeighboursByPhase == nil || want.NeighboursByPhase.Starting.Queries == 0 {
		t.Fatalf("summarise gave no neighbours by phase: %+v", want.NeighboursByPhase)
	}
	res.Entries, res.QuietWorst10sP99Ms, res.QuietWorst10sRatio, res.NeighboursByPhase = nil, 0, 0, nil
	s := &Study{WarmS: 0, SteadyS: 10, TailS: 29, Arms: map[string]*Arm{"on_default": {Rollouts: []*Result{res}}}}
	dir := t.TempDir()
	if err := Remeasure(s, dir); err == nil || !strings.Contains(err.Error(), "on_default-rollout-1") {
		t.Fatalf("no raw trace: err %v, want one naming the event", err)
	}
	if err := coldstart.WriteJSON(filepath.Join(dir, "raw", "rollout-on_default-rollout-1.json"), raw{Trace: tr, Events: events}); err != nil {
		t.Fatal(err)
	}
	if err := Remeasure(s, dir); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(res.NeighboursByPhase, want.NeighboursByPhase) {
		t.Errorf("remeasured neighbours by phase %+v, want %+v", res.NeighboursByPhase, want.NeighboursByPhase)
	}
	if !reflect.DeepEqual(res.Entries, want.Entries) || res.QuietWorst10sP99Ms != want.QuietWorst10sP99Ms || res.QuietWorst10sRatio != want.QuietWorst10sRatio {
		t.Errorf("remeasured %+v %v %v, want %+v %v %v", res.Entries, res.QuietWorst10sP99Ms, res.QuietWorst10sRatio,
			want.Entries, want.QuietWorst10sP99Ms, want.QuietWorst10sRatio)
	}
	res.Worst10sP99Ms = 42
	if err := Remeasure(s, dir); err == nil || !strings.Contains(err.Error(), "not this event's trace") {
		t.Errorf("a trace that does not give the stored figures: err %v", err)
	}
}

func TestTableNamesTheSplitOrSaysItIsMissing(t *testing.T) {
	res := summarise("on_default", 1, "rollout", causeTrace(), onEvents(), rolloutBounds)
	s := &Study{Arms: map[string]*Arm{"on_default": {Rollouts: []*Result{res}}}}
	row := tableRow(t, Table(s), "on_default")
	// worst 500 ms / steady 5 ms; quiet 300 ms; entries 60× and 1×; by phase: pod 1's start holds
	// the 500 ms, its probes and its time out idle 5 ms.
	for _, want := range []string{"100.0× (100.0–100.0)", "60.0× (60.0–60.0)", "30.5× (max 60.0)", "| 100.0× / 1.0× / 1.0× |"} {
		if !strings.Contains(row, want) {
			t.Errorf("row %q lacks %q", row, want)
		}
	}
	res.Entries, res.QuietWorst10sP99Ms, res.QuietWorst10sRatio, res.NeighboursByPhase = nil, 0, 0, nil
	if row := tableRow(t, Table(s), "on_default"); !strings.Contains(row, "| – / – / – |") {
		t.Errorf("a study without the phases: row %q, want – / – / –", row)
	}
	if row := tableRow(t, Table(s), "on_default"); !strings.Contains(row, "| – | – |") {
		t.Errorf("a study without the split: row %q, want its two cells as –", row)
	}
	if md := Markdown(s, "x"); !strings.Contains(md, "| – | – |") {
		t.Errorf("every-event table of a study without the split lacks its – cells:\n%s", md)
	}
}

func tableRow(t *testing.T, table, arm string) string {
	t.Helper()
	for _, l := range strings.Split(table, "\n") {
		if strings.HasPrefix(l, "| "+arm+" |") {
			return l
		}
	}
	t.Fatalf("no row for %s in\n%s", arm, table)
	return ""
}

// The neighbours' figure is the load while a pod starts or is warmed, without any pod's entry
// span: a pod's cold serve in its first seconds is the entry's, not the neighbours'.
func TestNeighboursAreTheLoadWhileAPodWarmsOutsideEntries(t *testing.T) {
	var recs []coldstart.Record
	for i := range 1000 {
		s := time.Duration(i) * 100 * time.Millisecond
		lat := 5 * time.Millisecond
		switch {
		case s >= 50*time.Second && s < 52*time.Second: // pod 1's entry
			lat = 300 * time.Millisecond
		case s >= 60*time.Second && s < 62*time.Second: // while pod 0 warms
			lat = 100 * time.Millisecond
		}
		recs = append(recs, coldstart.Record{Scheduled: s, Sent: s, Latency: lat, Outcome: coldstart.OutcomeOK})
	}
	tr := &coldstart.Trace{Start: t0, Timeout: 2 * time.Second, Records: recs}
	events := []Event{
		ev(10, 1, KindCreated), ev(30, 1, KindHealthy), ev(50, 1, KindReady), ev(50, 1, KindInService),
		ev(45, 0, KindCreated), ev(65, 0, KindHealthy), ev(70, 0, KindWarm),
	}
	slices.SortStableFunc(events, func(a, b Event) int { return a.At.Compare(b.At) })
	w := coldstart.Window{Start: 0, End: 100 * time.Second}
	// Busy: [10, 30) and [45, 70); pod 1's entry [50, 60) is not counted: 200 + 50 + 100 queries.
	n, p99 := neighbours(tr, events, busySpans(events, t0, w.End), w)
	if n != 350 || p99 != 100 {
		t.Errorf("neighbours: %d queries, p99 %.0f ms; want 350 queries, p99 100 ms (the entry's 300 ms left out)", n, p99)
	}
	// No pod busy: no figure.
	if n, p99 := neighbours(tr, nil, nil, w); n != 0 || p99 != 0 {
		t.Errorf("no busy pod: %d queries, p99 %.0f ms; want none", n, p99)
	}
}

// The neighbours' figure split by what the pod out of service does: its JVM's start, its
// sidecar's probes, or nothing (the fleet one broker short). Each phase's own latency comes back
// as its p99; a pod's entry span is in none; probes while another pod starts count as a start.
func TestNeighboursByPhaseKeepStartWarmupAndIdleApart(t *testing.T) {
	sec := func(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }
	spans := []struct {
		from, to float64
		ms       float64
	}{
		{5, 10, 50}, {10, 30, 200}, {30, 40, 100}, {40, 45, 50}, {45, 55, 300}, // pod 1, with a sidecar
		{60, 65, 50}, {65, 75, 200}, {75, 85, 50}, {85, 95, 300}, // pod 0, without
	}
	var recs []coldstart.Record
	for i := range 1000 {
		s := time.Duration(i) * 100 * time.Millisecond
		lat := 5.0
		for _, sp := range spans {
			if s >= sec(sp.from) && s < sec(sp.to) {
				lat = sp.ms
			}
		}
		recs = append(recs, coldstart.Record{Scheduled: s, Sent: s, Latency: time.Duration(lat * float64(time.Millisecond)), Outcome: coldstart.OutcomeOK})
	}
	tr := &coldstart.Trace{Start: t0, Timeout: 2 * time.Second, Records: recs}
	events := []Event{
		ev(5, 1, KindOutOfService), ev(10, 1, KindCreated), ev(30, 1, KindHealthy), ev(40, 1, KindWarm), ev(45, 1, KindInService),
		ev(60, 0, KindOutOfService), ev(65, 0, KindCreated), ev(75, 0, KindHealthy), ev(85, 0, KindInService),
	}
	w := coldstart.Window{Start: 0, End: 100 * time.Second}
	got := neighboursByPhase(tr, events, busySpans(events, t0, w.End), w, 5)
	want := &NeighboursByPhase{
		Starting: Neighbours{Queries: 300, P99Ms: 200, Ratio: 40},
		Warming:  Neighbours{Queries: 100, P99Ms: 100, Ratio: 20},
		OutIdle:  Neighbours{Queries: 250, P99Ms: 50, Ratio: 10},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("by phase %+v, want %+v", *got, *want)
	}

	// Pod 0 starts [32, 38) inside pod 1's probes [30, 40): those 6 s are the start's, not the warmup's.
	overlapping := []Event{ev(10, 1, KindCreated), ev(30, 1, KindHealthy), ev(40, 1, KindWarm), ev(32, 0, KindCreated), ev(38, 0, KindHealthy)}
	slices.SortStableFunc(overlapping, func(a, b Event) int { return a.At.Compare(b.At) })
	if got := neighboursByPhase(tr, overlapping, busySpans(overlapping, t0, w.End), w, 5); got.Warming.Queries != 40 || got.Starting.Queries != 260 {
		t.Errorf("probes while another pod starts: warming %d, starting %d queries; want 40 and 260 (pod 1's 200, pod 0's 60)", got.Warming.Queries, got.Starting.Queries)
	}

	// A scale-out's pod was never in the Service: no one is out, idle.
	scale := []Event{ev(10, 1, KindCreated), ev(30, 1, KindHealthy), ev(40, 1, KindWarm), ev(45, 1, KindInService)}
	if got := neighboursByPhase(tr, scale, busySpans(scale, t0, w.End), w, 5); got.OutIdle != (Neighbours{}) || got.Warming.Queries != 100 {
		t.Errorf("scale-out: out idle %+v (want none), warming %d queries (want 100)", got.OutIdle, got.Warming.Queries)
	}
}
