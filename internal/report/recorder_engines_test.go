package report

import (
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/pkg/pinot"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/prober"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/prober/event"
)

// status GETs /status (it must answer 200) and decodes it.
func (f *fixture) status(t *testing.T) Status {
	t.Helper()
	code, body := f.get("/status")
	if code != 200 {
		t.Fatalf("/status answered %d", code)
	}
	var s Status
	if err := json.Unmarshal([]byte(body), &s); err != nil {
		t.Fatalf("/status: %v\n%s", err, body)
	}
	return s
}

func probe(multiStage, ok bool) event.Event {
	res := pinot.Result{Class: pinot.Success}
	if !ok {
		res = pinot.Result{Class: pinot.Transient, Message: "probe timed out"}
	}
	return event.Event{Kind: event.KindProbed, SQL: "q", Step: event.StepProbe, Result: res, Latency: time.Millisecond, MultiStage: multiStage}
}

// /status says, per engine, how far the run is toward that engine's share of the
// floor, and which engine lends its workers: which engine a closed gate waits for.
func TestStatusShowsEachEnginesProgress(t *testing.T) {
	f := newFixture(t)
	obs := event.Observers{Recorder{M: f.m, Board: f.board}}
	now := time.Now()
	f.board.StartRun(now, now.Add(15*time.Second))
	if s := f.status(t); len(s.Engines) != 0 {
		t.Errorf("before the plan: engines %+v, want none", s.Engines)
	}

	obs.Observe(event.Event{Kind: event.KindEngineFloors, Floors: event.Floors{MultiStage: 40, SingleStage: 60}})
	for range 60 {
		obs.Observe(probe(false, true))
	}
	for range 3 {
		obs.Observe(probe(true, true))
	}
	obs.Observe(probe(true, false))
	obs.Observe(event.Event{Kind: event.KindProbed, Step: event.StepNoScatter, Result: pinot.Result{Class: pinot.Success}})
	obs.Observe(event.Event{Kind: event.KindEngineWarm, MultiStage: false, Lent: 1})

	got := f.status(t).Engines
	want := map[string]EngineStatus{
		EngineSingleStage: {ProbesSucceeded: 60, FloorShare: 60, ShareMet: true, WorkersLent: 1},
		EngineMultiStage:  {ProbesSucceeded: 3, ProbesFailed: 1, FloorShare: 40},
	}
	if len(got) != 2 || got[EngineSingleStage] != want[EngineSingleStage] || got[EngineMultiStage] != want[EngineMultiStage] {
		t.Errorf("engines %+v\nwant %+v", got, want)
	}

	// A dropped query moves the shares; an engine already probed stays, share 0.
	obs.Observe(event.Event{Kind: event.KindEngineFloors, Floors: event.Floors{MultiStage: 0, SingleStage: 100}})
	got = f.status(t).Engines
	if ms := got[EngineMultiStage]; ms.FloorShare != 0 || !ms.ShareMet || ms.ProbesSucceeded != 3 {
		t.Errorf("multi_stage after its share went: %+v", ms)
	}
	if ss := got[EngineSingleStage]; ss.FloorShare != 100 || ss.ShareMet {
		t.Errorf("single_stage with the whole floor: %+v, want 60 of 100, not met", ss)
	}

	// The next run starts with no engine; one never probed leaves with its share.
	f.board.StartRun(now, now.Add(15*time.Second))
	obs.Observe(event.Event{Kind: event.KindEngineFloors, Floors: event.Floors{MultiStage: 40, SingleStage: 60}})
	obs.Observe(event.Event{Kind: event.KindEngineFloors, Floors: event.Floors{MultiStage: 0, SingleStage: 100}})
	got = f.status(t).Engines
	if _, has := got[EngineMultiStage]; has || got[EngineSingleStage].FloorShare != 100 || got[EngineSingleStage].ProbesSucceeded != 0 {
		t.Errorf("second run, broker without the engine: engines %+v, want single_stage only, 0 of 100", got)
	}
}

// /status marks the multi-stage shapes as judged together from the plan on,
// before any of their windows closed.
func TestStatusMarksTheMultiStageShapesPooled(t *testing.T) {
	f := newFixture(t)
	rec := Recorder{M: f.m, Board: f.board}
	now := time.Now()
	f.board.StartRun(now, now.Add(15*time.Second))
	rec.Observe(event.Event{Kind: event.KindPlanned, Plan: prober.Plan{Queries: []string{"SELECT 1 FROM t", "SET useMultistageEngine=true; SELECT 1 FROM t"},
		Shapes: []string{"agg", "mse_agg"}}})
	want := []ShapeStatus{{Shape: "agg"}, {Shape: "mse_agg", Pooled: true}}
	if got := f.status(t).Shapes; !slices.Equal(got, want) {
		t.Errorf("shapes %+v, want %+v", got, want)
	}
	rec.Observe(event.Event{Kind: event.KindShapeWindow, Shape: event.ShapeState{Shape: "mse_agg", Probes: 2, Latest: 40 * time.Millisecond, Best: 40 * time.Millisecond, Pooled: true}})
	if got := f.status(t).Shapes[1]; !got.Pooled || got.LatestMs != 40 {
		t.Errorf("mse_agg after its engine's window: %+v", got)
	}
}
