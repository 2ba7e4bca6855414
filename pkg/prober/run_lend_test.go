package prober

import (
	"context"
	"math"
	"sync"
	"testing"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/pkg/pinot"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/prober/event"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/prober/judge"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/prober/plan"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/prober/schedule"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/sqltext"
)

// lendingBroker answers single-stage probes at once and multi-stage ones after
// mseDelay. For each multi-stage probe it notes how many were in flight with it
// and how many single-stage probes it had answered before.
type lendingBroker struct {
	mseDelay time.Duration

	mu          sync.Mutex
	mseInflight int
	sseAnswered int
	sseSent     int
	arrivals    []mseArrival
}

type mseArrival struct {
	inflight    int // multi-stage probes in flight, this one included
	sseAnswered int
	sseSent     int
}

func (b *lendingBroker) Query(ctx context.Context, q pinot.Query) pinot.Result {
	if q.SQL == MultiStageSQL { // the engine's detection: not a lane's probe
		return pinot.Result{Class: pinot.Success, HTTPStatus: 200, MultiStage: true}
	}
	b.mu.Lock()
	if !sqltext.MultiStage(q.SQL) {
		b.sseSent++
		b.sseAnswered++
		b.mu.Unlock()
		return pinot.Result{Class: pinot.Success, HTTPStatus: 200}
	}
	b.mseInflight++
	b.arrivals = append(b.arrivals, mseArrival{b.mseInflight, b.sseAnswered, b.sseSent})
	b.mu.Unlock()
	defer func() {
		b.mu.Lock()
		b.mseInflight--
		b.mu.Unlock()
	}()
	select {
	case <-time.After(b.mseDelay):
		return pinot.Result{Class: pinot.Success, HTTPStatus: 200, MultiStage: true}
	case <-ctx.Done():
		return pinot.Result{Class: pinot.Transient, Message: "probe timed out"}
	}
}

// The single-stage lane's workers, all but its first, help the multi-stage lane
// once the single-stage engine is warm by the exit rule's evidence: its share
// of the floor, and under the converged exit its shapes flat too. Never before.
func TestWarmEngineLendsItsWorkersToTheColdOne(t *testing.T) {
	const floor, workers = 200, 4
	for _, c := range []struct {
		name  string
		exit  judge.ExitRule
		rule  judge.ConvergeRule
		lends bool
	}{
		{"floor exit: after the single-stage share", judge.ExitFloor, judge.ConvergeRule{}, true},
		{"converged exit: after the share and flat latency", judge.ExitConverged, judge.ConvergeRule{Window: 2, Windows: 1, Tolerance: 0.5}, true},
		{"converged exit: the share alone is not enough", judge.ExitConverged, judge.ConvergeRule{Window: 10, Windows: 1_000_000}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := &lendingBroker{mseDelay: 10 * time.Millisecond}
			s := Settings{MinIterations: floor, Concurrency: workers, ProbeTimeout: time.Second, MultiStage: EngineOn,
				NoScatterProbes: -1, Exit: c.exit, Converge: c.rule}
			rec := &recorder{}
			p := &Prober{Broker: b, Catalog: schemaCatalog{}, Settings: s, Observer: event.Observers{rec}}
			rep := p.Run(context.Background(), time.Now().Add(2*time.Second))

			qs := rep.Plan.Queries
			mse := plan.MultiStageQueries(qs)
			own := schedule.MultiStageWorkers(qs, workers) // the multi-stage lane's own workers
			if own == 0 || own == workers {
				t.Fatalf("plan %v gives the multi-stage lane %d of %d workers: no lending to test", qs, own, workers)
			}
			sseNeed := floor - int(math.Ceil(floor*float64(len(mse))/float64(len(qs))))

			b.mu.Lock()
			defer b.mu.Unlock()
			lent, firstLent := 0, -1
			for i, a := range b.arrivals {
				if a.inflight <= own {
					continue
				}
				lent++
				if firstLent < 0 {
					firstLent = i
				}
				if a.sseAnswered < sseNeed {
					t.Fatalf("multi-stage probe %d had %d in flight (its lane has %d workers) after %d single-stage answers: lent before the share of %d",
						i, a.inflight, own, a.sseAnswered, sseNeed)
				}
			}
			t.Logf("outcome %s; %d multi-stage probes, %d sent while lent workers helped; %d single-stage", rep.Outcome, len(b.arrivals), lent, b.sseSent)
			rec.mu.Lock()
			warm := rec.warm
			rec.mu.Unlock()
			if !c.lends {
				if lent > 0 || len(warm) > 0 {
					t.Fatalf("%d multi-stage probes had more than the lane's %d workers in flight, told %v: lent without the evidence", lent, own, warm)
				}
				return
			}
			// Told once, through the observers' fan-out: the single-stage engine, its workers but the anchor.
			if want := (engineWarm{multiStage: false, lent: workers - own - 1}); len(warm) == 0 || warm[0] != want || len(warm) > 2 {
				t.Fatalf("observer heard %+v, want %+v first (and at most the other engine after)", warm, want)
			}
			if lent == 0 {
				t.Fatalf("never more than the lane's %d workers on the multi-stage engine: the warm engine lent none", own)
			}
			if rep.Outcome != OutcomeWarm {
				t.Fatalf("outcome %s (%s), want warm", rep.Outcome, rep.Reason)
			}
			// The lane's anchor stayed: single-stage probes went on while the others helped.
			if b.sseSent <= b.arrivals[firstLent].sseSent {
				t.Fatalf("no single-stage probe after the lending began (%d before, %d in all): the anchor left too", b.arrivals[firstLent].sseSent, b.sseSent)
			}
		})
	}
}
