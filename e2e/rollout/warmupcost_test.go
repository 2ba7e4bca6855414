package rollout

import (
	"context"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/e2e/coldstart"
)

// warmTrace is slowTrace at 100 ms in [45 s, 50 s) (pod 1 warmed in [40 s, 55 s)) and 20 ms in
// [135 s, 140 s) (pod 0 warmed in [130 s, 145 s)).
func warmTrace() *coldstart.Trace {
	return slowTrace(slow{45, 50, 100 * time.Millisecond}, slow{135, 140, 20 * time.Millisecond})
}

// Each warming pod's cost: its sidecar's probes over its run's time against the load's rate,
// and the pods in service's p99 while it (not another pod) was warmed. A pod whose /status was
// not read has its neighbours' figure only; the arm's summary is over what was measured.
func TestWarmupCostIsEachWarmingPodsProbesAgainstTheFleet(t *testing.T) {
	warm1 := ev(55, 1, KindWarm)
	warm1.Run = &SidecarRun{Outcome: "warm", Succeeded: 300, Failed: 6, NoScatter: 4, Seconds: 15.5}
	events := append(slices.Clone(rolloutEvents), warm1, ev(145, 0, KindWarm))
	slices.SortStableFunc(events, func(a, b Event) int { return a.At.Compare(b.At) })
	res := summarise(ArmOnFast, 1, "rollout", warmTrace(), events, rolloutBounds)
	want := []WarmupCost{
		{Pod: 1, WarmingS: 15, Probes: 310, RunS: 15.5, ProbesPerS: 20, FleetShare: 2, Neighbours: Neighbours{Queries: 150, P99Ms: 100, Ratio: 20}},
		{Pod: 0, WarmingS: 15, Neighbours: Neighbours{Queries: 150, P99Ms: 20, Ratio: 4}},
	}
	if !reflect.DeepEqual(res.WarmupCosts, want) {
		t.Errorf("warmup costs\n%+v\nwant\n%+v", res.WarmupCosts, want)
	}
	got := summariseWarmupCosts([]*Result{res, {WarmupCosts: []WarmupCost{{Pod: 2, Probes: 90, RunS: 15, ProbesPerS: 6, FleetShare: 0.6}}}})
	// pods 1 and 2's rates, pods 1 and 0's neighbours
	wantSum := &WarmupCostSummary{Pods: 3, Runs: 2, Neighboured: 2, ProbesPerS: &Spread{Median: 13, Max: 20}, FleetShare: &Spread{Median: 1.3, Max: 2},
		NeighboursRatio: &Spread{Median: 12, Max: 20}}
	if !reflect.DeepEqual(got, wantSum) {
		t.Errorf("summary %+v %+v %+v %+v, want %+v", got, *got.ProbesPerS, *got.FleetShare, *got.NeighboursRatio, wantSum)
	}
	if got := summariseWarmupCosts([]*Result{{}}); got != nil {
		t.Errorf("an arm with no warmup has a summary: %+v", got)
	}
	// An arm without the sidecar has no warm event: nothing.
	if off := summarise(ArmOff, 1, "rollout", warmTrace(), rolloutEvents, rolloutBounds); off.WarmupCosts != nil {
		t.Errorf("off: %+v", off.WarmupCosts)
	}
}

// The sidecar's /status, read when its gate opened: the warm event's detail as before, and the
// run's probes (floor probes succeeded and failed, and the no-scatter ones) and wall time.
func TestWarmReadsTheSidecarsRun(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`{"phase":"warm","outcome":"budget_expired","probes_succeeded":386,"probes_failed":2,"no_scatter_probes":4,"duration_seconds":15.01,"tables":[]}`))
	}))
	defer srv.Close()
	w := newWatcher(nil, nil)
	detail, run := w.outcome(context.Background(), srv.URL+"/status")
	if detail != "budget_expired, 386 probes in 15.0 s" {
		t.Errorf("detail %q", detail)
	}
	if run == nil || run.Probes() != 392 || run.Seconds != 15.01 || run.Outcome != "budget_expired" {
		t.Errorf("run %+v, want 392 probes in 15.01 s", run)
	}
	srv.Close()
	if detail, run := w.outcome(context.Background(), srv.URL+"/status"); run != nil || detail[:8] != "status: " {
		t.Errorf("unreadable status: %q, %+v", detail, run)
	}
}
