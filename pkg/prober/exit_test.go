package prober

import (
	"math"
	"strconv"
	"testing"
)

func TestReasonListsAtMostFiveUnsettledShapes(t *testing.T) {
	var shapes []string
	for i := range 8 {
		shapes = append(shapes, "s"+strconv.Itoa(i+1))
	}
	r := &run{s: Settings{Exit: ExitConverged}, conv: NewTracker(ConvergeRule{}, shapes)}
	feedRoundRobin(r.conv, shapeFeed{"s1", flat(40, 3*ms)}, shapeFeed{"s2", flat(20, 3*ms)}, shapeFeed{"s3", flat(4, 3*ms)})
	want := "budget ran out with latency not yet flat on s2 (1 of 3 flat windows), s3 (4 probes, no full window), " +
		"s4 (0 probes, no full window), s5 (0 probes, no full window), s6 (0 probes, no full window), 2 more"
	if got := r.reason(OutcomeBudgetExpired); got != want {
		t.Errorf("reason\n got %q\nwant %q", got, want)
	}
}

func TestReasonOfTheFloorExit(t *testing.T) {
	r := &run{s: Settings{MinIterations: 300}}
	r.succeeded.Store(300)
	if got, want := r.reason(OutcomeWarm), "floor of 300 successful probes reached"; got != want {
		t.Errorf("reason %q, want %q", got, want)
	}
	r.succeeded.Store(12)
	if got, want := r.reason(OutcomeBudgetExpired), "budget ran out with 12 of 300 successful probes"; got != want {
		t.Errorf("reason %q, want %q", got, want)
	}
}

func TestReasonNamesTheConvergedShapes(t *testing.T) {
	var shapes []string
	var feeds []shapeFeed
	for i := range 7 {
		shapes = append(shapes, "s"+strconv.Itoa(i+1))
		feeds = append(feeds, shapeFeed{shapes[i], flat(40, 3*ms)})
	}
	r := &run{s: Settings{Exit: ExitConverged, MinIterations: 5}, conv: NewTracker(ConvergeRule{}, shapes)}
	feedRoundRobin(r.conv, feeds...)
	want := "floor of 5 successful probes reached; latency flat on s1, s2, s3, s4, s5, 2 more"
	if got := r.reason(OutcomeWarm); got != want {
		t.Errorf("reason\n got %q\nwant %q", got, want)
	}
}

// A run past the floor's total can still be short on one engine's share: the
// reason says which, so an operator does not read "budget ran out" as latency alone.
func TestReasonNamesTheEngineShortOfItsShare(t *testing.T) {
	r := &run{s: Settings{MinIterations: 300}}
	r.mseShare.Store(math.Float64bits(0.5))
	r.mseLive.Store(100) // four passes (400) are more than half the floor: the share stands
	r.succeeded.Store(508)
	r.mseSucceeded.Store(33)
	want := "budget ran out with 33 of 150 multi-stage successful probes"
	if got := r.reason(OutcomeBudgetExpired); got != want {
		t.Errorf("reason\n got %q\nwant %q", got, want)
	}
	r.mseSucceeded.Store(150)
	if got := r.reason(OutcomeBudgetExpired); got != "budget ran out" {
		t.Errorf("reason %q with both engines at their share", got)
	}
}

// The multi-stage shapes are judged together: the reason names them once, as
// their engine, not each with the pool's count.
func TestReasonNamesThePooledShapesOnce(t *testing.T) {
	mse := []string{"mse_agg", "mse_join", "mse_window"}
	r := &run{s: Settings{Exit: ExitConverged}, conv: NewTracker(ConvergeRule{}, append([]string{"agg"}, mse...))}
	r.conv.Pool(mse)
	feedRoundRobin(r.conv, shapeFeed{"agg", flat(40, 3*ms)},
		shapeFeed{"mse_agg", flat(8, 30*ms)}, shapeFeed{"mse_join", flat(8, 90*ms)}, shapeFeed{"mse_window", flat(8, 60*ms)})
	want := "budget ran out with latency not yet flat on the multi-stage shapes together (1 of 3 flat windows)"
	if got := r.reason(OutcomeBudgetExpired); got != want {
		t.Errorf("reason\n got %q\nwant %q", got, want)
	}
}
