package schedule

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/pkg/backoff"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/pinot"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/prober/event"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/prober/plan"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/selector"
)

// The default probe runs Concurrency workers without a barrier between rounds:
// each takes the next query of its lane as soon as its last probe answered. The
// workers are split between the engines (a lane each), because a cold
// multi-stage engine answers a probe in seconds where the single-stage one takes
// tens of milliseconds: sharing rounds, or one rotation, the slow engine would
// hold the workers and starve the other's warmup (measured on a cold 1.5.1
// broker: 130–190 probes in 15 s with both engines in rounds, 720 in 9 s with
// single-stage probes alone). An engine warm early lends workers (lend.go).

// laneSet holds the live queries of each lane and their rotations.
type laneSet struct {
	mu     sync.Mutex
	lanes  []*lane
	worked map[string]bool // queries that answered once: never dropped after
	// planned is the run's plan as the lanes began; fellBack the LIMIT 1 plan that
	// replaced it once every shape was dropped (nil until then).
	planned  plan.Plan
	fellBack *plan.Plan
}

type lane struct {
	live []string
	rot  *selector.Rotation
	// closed: the lane's engine is not known yet (its workers help the other lane).
	closed bool
	// shapes: the shapes of the lane's queries, its engine's convergence.
	shapes []string
	// workers: how many workers the lane has; warmSaid: its engine's warmth was told.
	workers  int
	warmSaid bool
	// hold pauses the lane when its probes keep failing (one engine can refuse
	// while the other answers).
	hold *pause
}

// ready: the lane has queries to send now.
func (l *lane) ready() bool { return !l.closed && len(l.live) > 0 }

// multiStageLane is the multi-stage engine's lane when newLanes splits them.
const multiStageLane = 1

// splitsEngines reports whether newLanes gives each engine a lane of its own:
// there are workers for both and queries of both (mse of n are multi-stage).
func splitsEngines(mse, n, workers int) bool {
	return workers >= 2 && mse > 0 && mse < n
}

// newLanes splits queries by engine when there are workers for both (each engine
// then has at least one), else keeps one lane in the plan's order. It returns the
// lanes and each worker's lane.
func newLanes(queries []string, mse map[string]bool, workers int) (*laneSet, []int) {
	var sse, ms []string
	for _, q := range queries {
		if mse[q] {
			ms = append(ms, q)
		} else {
			sse = append(sse, q)
		}
	}
	ls := &laneSet{worked: map[string]bool{}}
	assign := make([]int, workers)
	if !splitsEngines(len(ms), len(queries), workers) {
		ls.lanes = []*lane{newLane(queries)}
		return ls, assign
	}
	ls.lanes = []*lane{newLane(sse), newLane(ms)} // the second is multiStageLane
	// Workers follow the engines' shares of the queries, at least one each.
	msw := (workers*len(ms) + len(queries)/2) / len(queries)
	msw = min(max(msw, 1), workers-1)
	for i := range msw {
		assign[workers-1-i] = multiStageLane
	}
	return ls, assign
}

// MultiStageWorkers is how many of workers the schedule gives the multi-stage
// engine's lane for queries: 0 when the engines share one lane, whose workers
// then wait for the engine to be known.
func MultiStageWorkers(queries []string, workers int) int {
	_, assign := newLanes(queries, plan.MultiStageQueries(queries), workers)
	n := 0
	for _, l := range assign {
		if l == multiStageLane {
			n++
		}
	}
	return n
}

func newLane(qs []string) *lane {
	live := append([]string(nil), qs...)
	return &lane{live: live, rot: selector.NewRotation(live, 0)}
}

// live lists every lane's live queries.
func (ls *laneSet) live() []string {
	var out []string
	for _, l := range ls.lanes {
		out = append(out, l.live...)
	}
	return out
}

// pick returns the lane a worker takes its next query from: its own, unless
// that one is closed, empty (all its queries dropped), paused (held) or, for a
// worker that is not its anchor, warm (engineWarm); then an open lane still
// warming, else any open lane. wait: none is open, but a closed or paused lane
// still has queries. Under ls.mu.
func (ls *laneSet) pick(at seat, warm func(int) bool, now time.Time) (l *lane, wait bool) {
	open := func(l *lane) bool { return l.ready() && !l.hold.holding(now) }
	mine := ls.lanes[at.lane]
	if open(mine) && (at.anchor || !warm(at.lane)) {
		return mine, false
	}
	for i, l := range ls.lanes {
		if i != at.lane && open(l) && !warm(i) {
			return l, false
		}
	}
	if open(mine) {
		return mine, false
	}
	for _, l := range ls.lanes {
		if open(l) {
			return l, false
		}
	}
	return nil, !ls.empty()
}

// next is the worker's next query, admitted under its tables' quota and the
// run's cap: held back (within ctx) while every query of its lane waits for a slot. ok is false when
// ctx ended, the budget cannot wait that long, or no query is left.
func (r *Schedule) next(ctx context.Context, ls *laneSet, at seat) (string, *lane, bool) {
	warm := func(i int) bool { return r.engineWarm(ls, i) }
	for {
		ls.mu.Lock()
		l, held := ls.pick(at, warm, r.Now())
		if l == nil {
			ls.mu.Unlock()
			if held && r.Now().Before(r.Deadline) && backoff.Sleep(ctx, pollPaused) {
				continue
			}
			return "", nil, false
		}
		p := r.paced()
		b, wait := p.pick(l.rot, 1, len(l.live))
		if len(b) > 0 {
			// Take the slot now, before another worker sees it free.
			wait, taken := p.reserve(b[0])
			ls.mu.Unlock()
			if wait <= 0 {
				return b[0], l, true
			}
			if wait <= r.Deadline.Sub(r.Now()) && backoff.Sleep(ctx, wait) {
				return b[0], l, true
			}
			taken.giveBack(r.Now())
			return "", nil, false
		}
		ls.mu.Unlock()
		if !backoff.Sleep(ctx, wait) {
			return "", nil, false
		}
	}
}

// answered records one answer. A generated shape's query is dropped with the
// broker's reason when its first answer is a compile error, or with its last
// error when the give-up rule (judge/giveup.go) says it never succeeds; the LIMIT 1
// probe is never dropped (a table that vanished answers it with 190 too). When
// the last query goes, the legs' LIMIT 1 probes take their place (fallBack).
// It reports whether any query is left, and whether the answer dropped sql
// (this one or another worker's, answered just before).
func (r *Schedule) answered(ls *laneSet, sql string, res pinot.Result) (left, dropped bool) {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	if res.Class == pinot.Success {
		ls.worked[sql] = true
		return !ls.empty(), false
	}
	if r.shapeOf[sql] == plan.ShapeLimit1 {
		return !ls.empty(), false
	}
	why := r.Judge.GivenUp(sql)
	if res.Class == pinot.BadQuery && !ls.worked[sql] {
		why = res.Message
	}
	if why == "" {
		return !ls.empty(), false
	}
	removed := false
	for _, l := range ls.lanes {
		if i := indexOf(l.live, sql); i >= 0 {
			l.live = append(l.live[:i:i], l.live[i+1:]...)
			l.rot = selector.NewRotation(l.live, 0)
			removed = true
		}
	}
	if removed {
		r.drop(sql, why)
		if ls.empty() {
			r.fallBack(ls)
		}
		r.tellFloors()
	}
	return !ls.empty(), true
}

// fallbackWhy is a leg's Plan.Fallbacks entry once every shape was dropped.
const fallbackWhy = "every probe shape was dropped: the broker answers none of them"

// fallBack puts the chosen legs' LIMIT 1 probes in the first lane once every
// query was dropped, so the run is judged on the probe every table answers,
// and reports the plan again. Once per run: LIMIT 1 is never dropped. Under ls.mu.
func (r *Schedule) fallBack(ls *laneSet) {
	if len(r.fallback) == 0 || ls.fellBack != nil {
		return
	}
	pl := ls.planned
	pl.Queries, pl.Shapes = nil, nil
	pl.Fallbacks = map[string]string{}
	l := ls.lanes[0]
	for _, leg := range r.fallback {
		q := plan.DefaultProbe(leg)
		pl.Add(plan.ShapeLimit1, q)
		pl.Fallbacks[leg] = fallbackWhy
		l.live = append(l.live, q)
	}
	l.rot = selector.NewRotation(l.live, 0)
	if !slices.Contains(l.shapes, plan.ShapeLimit1) {
		l.shapes = append(l.shapes, plan.ShapeLimit1)
	}
	ls.fellBack = &pl
	r.replan(pl) // the judge takes the LIMIT 1 probes from it
}

// empty reports whether every lane's queries were dropped. Under ls.mu; on the
// probe path, so it builds no list.
func (ls *laneSet) empty() bool {
	for _, l := range ls.lanes {
		if len(l.live) > 0 {
			return false
		}
	}
	return true
}

func indexOf(ss []string, s string) int {
	for i, x := range ss {
		if x == s {
			return i
		}
	}
	return -1
}

// defaults runs the default probe's workers until the run has an outcome. With
// pending set, the engine is not known yet: the multi-stage lane stays closed
// (its workers help the single-stage one) until it is.
func (r *Schedule) defaults(ctx context.Context, pl plan.Plan, pending <-chan plan.Engine) End {
	ls, assign := newLanes(pl.Queries, r.mse, r.Settings.Concurrency)
	ls.planned = pl
	for _, l := range ls.lanes {
		l.shapes = r.shapesOf(l.live)
	}
	for _, i := range assign {
		ls.lanes[i].workers++
	}
	// The first outcome wins and cuts the other workers' probes in flight: the
	// gate waits for no evidence the verdict does not need (a cold multi-stage
	// probe can take the whole probe timeout). A probe cut by a warm verdict is
	// no failure of the broker's (send does not count it); one cut by the
	// deadline counts as failed, as it always did.
	ctx, cut := context.WithCancelCause(ctx)
	defer cut(nil)
	var once sync.Once
	var over atomic.Bool
	var rep End
	finish := func(x End) {
		once.Do(func() {
			rep = x
			over.Store(true)
			if x.Warm {
				cut(errOutcomeKnown)
			} else {
				cut(nil) // the deadline (or a failure): cut probes count as before
			}
		})
	}
	final := &pl
	engineDone := make(chan struct{})
	stop := make(chan struct{})
	if pending != nil {
		ls.lanes[multiStageLane].closed = true
		go func() {
			defer close(engineDone)
			defer r.catch()
			final = r.openEngine(ctx, ls, pl, pending, stop)
		}()
	} else {
		close(engineDone)
	}
	for _, l := range ls.lanes {
		l.hold = newPause(l.workers)
	}
	var wg sync.WaitGroup
	for _, at := range seats(assign) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer r.catch()
			r.work(ctx, pl, ls, at, &over, finish)
		}()
	}
	wg.Wait()
	close(stop)
	<-engineDone
	r.rethrow()
	rep.Plan = *final
	if ls.fellBack != nil {
		rep.Plan = *ls.fellBack
		rep.Plan.Engine = final.Engine
	}
	return rep
}

// openEngine waits for the engine (or the run's end) and opens the multi-stage
// lane, or, when the broker has no such engine, drops the lane's queries (not
// reported as dropped: they were never sent) and reports the plan without them.
// It returns the run's final plan.
func (r *Schedule) openEngine(ctx context.Context, ls *laneSet, pl plan.Plan, pending <-chan plan.Engine, stop <-chan struct{}) *plan.Plan {
	var e plan.Engine
	select {
	case e = <-pending:
	case <-ctx.Done():
		return &pl
	case <-stop:
		return &pl
	}
	r.EngineFound(e)
	final := pl.WithEngine(e)
	planned := event.Event{Kind: event.KindPlanned, Plan: final}
	ls.mu.Lock()
	ms := ls.lanes[multiStageLane]
	ms.closed = false
	if !e.MultiStage {
		ms.live, ms.rot = nil, selector.NewRotation(nil, 0)
		r.Judge.Observe(planned, r.Now()) // the judge drops the lane's queries with it
		r.tellFloors()
	}
	ls.mu.Unlock()
	if !e.MultiStage {
		r.Observer.Observe(planned)
	}
	return &final
}

// work is one worker's loop.
func (r *Schedule) work(ctx context.Context, pl plan.Plan, ls *laneSet, at seat, over *atomic.Bool, finish func(End)) {
	for !over.Load() {
		if rep, done := r.check(ctx, pl); done {
			finish(rep)
			return
		}
		sql, l, ok := r.next(ctx, ls, at)
		if !ok {
			if ls.emptyLocked() {
				finish(End{Err: ErrAllProbesDropped, Plan: pl})
				return
			}
			continue // ctx ended: check() reports it
		}
		// After the slot: a pause that began while this worker waited for it holds.
		tester, ok := l.hold.wait(ctx, r.Now)
		if !ok {
			continue
		}
		res, took := r.send(ctx, event.StepProbe, sql)
		left, dropped := r.answered(ls, sql, res)
		if !left {
			finish(End{Err: ErrAllProbesDropped, Plan: pl})
			return
		}
		switch {
		case res.Class == pinot.Success:
			l.hold.succeeded()
		case dropped, r.shapeOf[sql] != plan.ShapeLimit1 && r.Judge.Counted(sql):
			// A verdict on the query (or one on its way), not the broker refusing:
			// a lane of shapes the broker cannot run must drop them all, not back
			// off between them. At most giveUpAfter such failures per query.
			l.hold.forgive(tester)
		default:
			l.hold.failed(r.Now(), tester, pinot.QuotaRefused(res), took)
		}
	}
}

func (ls *laneSet) emptyLocked() bool {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	return ls.empty()
}

// shapesOf lists the distinct shapes of queries, in order.
func (r *Schedule) shapesOf(queries []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, q := range queries {
		if s := r.shapeOf[q]; !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}
