package judge

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/pkg/pinot"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/prober/event"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/prober/plan"
)

// What the judge makes of each kind of event, as a table: a run's events in,
// at clock values; the floors, the give-up rule's verdicts, the events it
// answers and the verdict out.
func TestObserve(t *testing.T) {
	// The plan of the cases: a and b single-stage shapes, m a multi-stage one.
	first, sqls := planned([]string{"a", "b", "m"}, map[string]bool{"m": true})
	a, b, m := sqls["a"], sqls["b"], sqls["m"]
	limit1 := plan.DefaultProbe("t_OFFLINE")
	fallback := plan.Plan{Custom: true}
	fallback.Add(plan.ShapeLimit1, limit1)
	withoutEngine := plan.Plan{Custom: true}
	withoutEngine.Add("a", a)
	withoutEngine.Add("b", b)
	execErr := pinot.Result{Class: pinot.Transient, HTTPStatus: 200, ErrorCode: 200, Message: "error 200: boom"}
	timedOut := pinot.Result{Class: pinot.Transient, Message: "probe timed out"}
	answer := func(sql string, res pinot.Result, timeout bool) event.Event {
		return event.Event{Kind: event.KindProbed, Step: event.StepProbe, SQL: sql, Result: res, TimedOut: timeout}
	}
	flatRun := func(sql string) []event.Event { // 40 flat successes: a shape converged
		return slices.Repeat([]event.Event{probed(sql, 3*ms, true)}, 40)
	}
	cat := func(evs ...[]event.Event) []event.Event { return slices.Concat(evs...) }
	one := func(e ...event.Event) []event.Event { return e }
	dropped := func(sql string) event.Event { return event.Event{Kind: event.KindDropped, SQL: sql, Reason: "broken"} }
	replanned := func(p plan.Plan) event.Event { return event.Event{Kind: event.KindPlanned, Plan: p} }
	jitFailed := event.Event{Kind: event.KindJITReadFailed, Err: errScrapeTimeout}

	cases := []struct {
		name     string
		rules    Rules
		watchJIT bool
		events   []event.Event // after the first plan, one every gap
		gap      time.Duration
		// Checked after the last event: the floors, what the judge answered to
		// it (its kinds, and a streak), the queries given up, the verdict.
		floors  event.Floors
		answer  []event.Kind
		inARow  int
		givenUp map[string]string
		warm    bool
	}{
		{name: "the floor splits by the engines' live queries", rules: Rules{Floor: 30},
			// one multi-stage query of three: a third, capped at four passes over it
			events: one(probed(a, ms, true)), floors: event.Floors{MultiStage: 4, SingleStage: 26}},
		{name: "a dropped query leaves the split", rules: Rules{Floor: 30},
			events: one(dropped(m)), floors: event.Floors{SingleStage: 30}},
		{name: "a plan without the engine's queries leaves the split", rules: Rules{Floor: 30},
			events: one(replanned(withoutEngine)), floors: event.Floors{SingleStage: 30}},
		{name: "a later plan does not bring a dropped query back", rules: Rules{Floor: 30},
			events: one(dropped(m), replanned(first.Plan)), floors: event.Floors{SingleStage: 30}},
		{name: "a later plan does not bring a dropped shape back", rules: Rules{Exit: ExitConverged},
			// b alone is live: its flat run is the only shape required.
			events: cat(one(dropped(a), replanned(withoutEngine)), flatRun(b)),
			answer: []event.Kind{event.KindShapeWindow}, warm: true},
		{name: "each probe counts toward the floor, every engine its share", rules: Rules{Floor: 3},
			events: one(probed(a, ms, true), probed(b, ms, true), probed(m, ms, true)),
			floors: event.Floors{MultiStage: 1, SingleStage: 2}, warm: true},
		{name: "a failed probe does not count", rules: Rules{Floor: 3},
			events: one(probed(a, ms, true), probed(b, ms, false), probed(m, ms, true)),
			floors: event.Floors{MultiStage: 1, SingleStage: 2}},
		{name: "the no-scatter step is no floor probe", rules: Rules{Floor: 1},
			events: one(event.Event{Kind: event.KindProbed, Step: event.StepNoScatter, SQL: plan.NoScatterSQL, Result: pinot.Result{Class: pinot.Success}}),
			floors: event.Floors{MultiStage: 1}},
		{name: "a probe that closes a window answers the shape's state", rules: Rules{Exit: ExitConverged},
			events: cat(flatRun(a), flatRun(b), flatRun(m)[:39], one(probed(m, 3*ms, true))),
			answer: []event.Kind{event.KindShapeWindow}, warm: true},
		{name: "converged waits for every shape", rules: Rules{Exit: ExitConverged},
			events: cat(flatRun(a), flatRun(m)), answer: []event.Kind{event.KindShapeWindow}},
		{name: "a dropped shape is not waited for", rules: Rules{Exit: ExitConverged},
			events: cat(flatRun(a), flatRun(m), one(dropped(b))), warm: true},
		{name: "the LIMIT 1 fallback is judged on its own probes", rules: Rules{Exit: ExitConverged},
			events: cat(one(dropped(a), dropped(b), dropped(m), replanned(fallback)), flatRun(limit1)),
			answer: []event.Kind{event.KindShapeWindow}, warm: true},
		{name: "three execution errors give a query up", rules: Rules{Budget: 12 * time.Second},
			events: one(answer(a, execErr, false), answer(a, execErr, false), answer(a, execErr, false)), gap: 10 * ms,
			floors: event.Floors{}, givenUp: map[string]string{a: "no success in 3 probes (last: error 200: boom)"}, warm: true},
		{name: "two of its own timeouts over a third of the budget give it up", rules: Rules{Budget: 12 * time.Second},
			events: one(answer(a, timedOut, true), answer(a, timedOut, true)), gap: 4 * time.Second,
			givenUp: map[string]string{a: "no success in 2 probes over 4s, a third of the budget (last: probe timed out)"}, warm: true},
		{name: "the run's timeouts are not the query's", rules: Rules{Budget: 12 * time.Second},
			events: one(answer(a, timedOut, false), answer(a, timedOut, false)), gap: 4 * time.Second,
			givenUp: map[string]string{a: ""}, warm: true},
		{name: "a reading answers the JIT signal's state", rules: Rules{Floor: 0}, watchJIT: true,
			events: one(jitRead(0), jitRead(1000)), gap: 500 * ms,
			answer: []event.Kind{event.KindJITRead}, warm: true},
		{name: "a failed reading answers its streak", rules: Rules{Exit: ExitConverged}, watchJIT: true,
			events: one(jitFailed, jitFailed), answer: []event.Kind{event.KindJITReadFailed}, inARow: 2},
		{name: "the last failure in a row gives the signal up", rules: Rules{Exit: ExitConverged}, watchJIT: true,
			events: cat(flatRun(a), flatRun(b), flatRun(m), slices.Repeat(one(jitFailed), DefaultJITFailures)),
			answer: []event.Kind{event.KindJITUnavailable}, warm: true},
		{name: "a compiling JIT holds the converged exit", rules: Rules{Exit: ExitConverged}, watchJIT: true,
			events: cat(flatRun(a), flatRun(b), flatRun(m), one(jitRead(0), jitRead(2000))), gap: 4 * time.Second,
			answer: []event.Kind{event.KindJITRead}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			j := New(c.rules)
			if c.watchJIT {
				j.WatchJIT()
			}
			j.Observe(first, t0)
			now := t0
			var out []event.Event
			for _, e := range c.events {
				now = now.Add(max(c.gap, time.Millisecond))
				out = j.Observe(e, now)
			}
			if got := j.Floors(); got != c.floors {
				t.Errorf("floors %+v, want %+v", got, c.floors)
			}
			var kinds []event.Kind
			for _, e := range out {
				kinds = append(kinds, e.Kind)
			}
			if !slices.Equal(kinds, c.answer) {
				t.Errorf("answered %v to the last event, want %v", kinds, c.answer)
			}
			if len(out) == 1 && out[0].Kind == event.KindJITReadFailed && out[0].InARow != c.inARow {
				t.Errorf("streak %d, want %d", out[0].InARow, c.inARow)
			}
			for sql, want := range c.givenUp {
				if got := j.GivenUp(sql); got != want {
					t.Errorf("%s given up %q, want %q", sql, got, want)
				}
			}
			if v := j.Verdict(); v.Warm != c.warm {
				t.Errorf("verdict %+v, want warm %v", v, c.warm)
			}
		})
	}
}

// The events the judge answers carry what the reporting reads: a window's
// shape state, the JIT signal's rate, why the signal was given up.
func TestObserveAnswersWhatTheReportingReads(t *testing.T) {
	j := New(Rules{Exit: ExitConverged})
	j.WatchJIT()
	p, sqls := planned([]string{"agg"}, nil)
	j.Observe(p, t0)
	var windows []event.ShapeState
	for i := range 10 {
		for _, e := range j.Observe(probed(sqls["agg"], 3*ms, true), t0.Add(time.Duration(i)*ms)) {
			windows = append(windows, e.Shape)
		}
	}
	if len(windows) != 1 || windows[0].Shape != "agg" || windows[0].Probes != 10 || windows[0].Latest != 3*ms {
		t.Errorf("windows %+v, want agg's first window of 10 probes at 3ms", windows)
	}
	var last event.Event
	for i, total := range settled {
		last = j.Observe(jitRead(total), t0.Add(time.Duration(i)*500*ms))[0]
	}
	if !last.JIT.Known || !last.JIT.Quiet || last.JIT.Peak != 2 {
		t.Errorf("JIT after a settled compiler: %+v", last.JIT)
	}
	var gaveUp []event.Event
	for range DefaultJITFailures {
		gaveUp = j.Observe(event.Event{Kind: event.KindJITReadFailed, Err: errScrapeTimeout}, t0)
	}
	if len(gaveUp) != 1 || gaveUp[0].Err == nil || !strings.Contains(gaveUp[0].Err.Error(), fmt.Sprintf("%d readings in a row failed", DefaultJITFailures)) {
		t.Errorf("given up: %+v", gaveUp)
	}
}
