package judge

import (
	"slices"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/pkg/pinot"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/prober/event"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/prober/plan"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/sqltext"
)

// Observe takes one event of the run as evidence, at now by the run's clock,
// and returns the events the evidence yields for the reporting. It learns from
//   - KindPlanned: what is judged. The first plan fixes the shapes, each table
//     leg's query, the multi-stage queries (the floor's split, the pool); a
//     later one (the LIMIT 1 fallback, the plan without an absent engine)
//     replaces the live queries. The engines' floors are then Floors.
//   - KindProbed of a floor probe (StepProbe): the floor, the give-up rule, and
//     convergence; it returns a KindShapeWindow event for each shape whose
//     window the probe closed.
//   - KindDropped: the query is judged no more.
//   - KindJITRead (CompileTime): it returns the event with the signal's state
//     (JIT), zero unless WatchJIT was called.
//   - KindJITReadFailed (Err): it returns the event with the streak (InARow),
//     or a KindJITUnavailable event once the signal is given up.
//
// It ignores every other kind. Safe for concurrent use, but the first plan
// must come before any probe.
func (j *Judge) Observe(e event.Event, now time.Time) []event.Event {
	switch e.Kind {
	case event.KindPlanned:
		j.planned(e.Plan)
	case event.KindDropped:
		j.drop(e.SQL)
	case event.KindProbed:
		if e.Step == event.StepProbe {
			return j.probed(e, now)
		}
	case event.KindJITRead:
		if j.jit != nil {
			e.JIT = j.jit.add(now, e.CompileTime)
		}
		return []event.Event{e}
	case event.KindJITReadFailed:
		return []event.Event{j.jitFailed(e)}
	}
	return nil
}

// planned takes a plan: the first is what the run judges, a later one only
// adds its new queries (the fallback's LIMIT 1 probes) and replaces the live ones.
func (j *Judge) planned(p plan.Plan) {
	shapeOf, shapes := p.ShapeIndex()
	j.mu.Lock()
	defer j.mu.Unlock()
	first := j.conv == nil
	if first {
		j.floor.mse = plan.MultiStageQueries(p.Queries) // fixed for the run
		j.conv = NewTracker(j.rules.Converge, shapes)
	}
	for _, q := range p.Queries {
		j.conv.Add(shapeOf[q], legOf(q), q) // each table leg's query judged on its own
	}
	if first {
		j.conv.Pool(p.MultiStageShapes()) // one engine's evidence (converge_pool.go)
	}
	j.live = j.withoutDropped(p.Queries)
	j.conv.keepOnly(j.live)
	j.floor.setLive(j.live)
}

// drop stops judging sql: its shape is judged on its other queries (not at all
// when none is left), and the floor splits between the engines by their
// shares of the queries still live.
func (j *Judge) drop(sql string) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.dropped[sql] = true
	j.live = slices.DeleteFunc(j.live, func(q string) bool { return q == sql })
	if j.conv != nil {
		j.conv.keepOnly(j.live)
	}
	j.floor.setLive(j.live)
}

// probed counts one floor probe's answer and feeds its latency to its shape.
func (j *Judge) probed(e event.Event, now time.Time) []event.Event {
	j.tries.answered(e.SQL, e.Result, aboutTheQuery(e.Result, e.TimedOut), now)
	ok := e.Result.Class == pinot.Success
	j.floor.count(e.SQL, ok)
	if j.conv == nil {
		return nil
	}
	var out []event.Event
	for _, st := range j.conv.Observe(e.SQL, e.Latency, ok) {
		out = append(out, event.Event{Kind: event.KindShapeWindow, Shape: st})
	}
	return out
}

// jitFailed counts a failed reading against the streak that gives the signal up.
func (j *Judge) jitFailed(e event.Event) event.Event {
	if j.jit == nil {
		return e
	}
	n, gaveUp := j.jit.failed(e.Err)
	if gaveUp {
		return event.Event{Kind: event.KindJITUnavailable, Err: j.jit.givenUp()}
	}
	e.InARow = n
	return e
}

// legOf is the table a query probes first (the typed leg of a generated
// probe, the left side of a join); "" when it names none.
func legOf(sql string) string {
	if ts := sqltext.Tables(sql); len(ts) > 0 {
		return ts[0]
	}
	return ""
}
