package prober

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/pkg/pinot"
)

// stuckOnceBroker answers every query at once, except the first probe of a
// table named stuck, which answers only when its context ends: a cold query
// still in flight when the run has its outcome.
type stuckOnceBroker struct {
	stuck string
	held  atomic.Bool
}

func (b *stuckOnceBroker) Query(ctx context.Context, q pinot.Query) pinot.Result {
	if strings.Contains(q.SQL, b.stuck) && b.held.CompareAndSwap(false, true) {
		<-ctx.Done()
		return pinot.Result{Class: pinot.Transient, Message: "probe cancelled"}
	}
	return pinot.Result{Class: pinot.Success, HTTPStatus: 200}
}

// Seen once: a run that logged warm with a duration of exactly its budget. The
// verdict came before the deadline; the run then waited for a probe still in
// flight until the deadline cut it. A run with its outcome ends at once: the
// gate must not wait a probe timeout for evidence nobody needs, and the probe
// cut by the outcome is no failure of the broker's.
func TestARunEndsWhenItHasItsOutcomeNotWhenItsLastProbeAnswers(t *testing.T) {
	b := &stuckOnceBroker{stuck: "users"}
	p := &Prober{Broker: b, Planner: Planner{Catalog: schemaCatalog{}, Settings: Settings{
		MinIterations: 20, Concurrency: 2, MultiStage: EngineOff, Shapes: ShapesLimit1, ProbeTimeout: 5 * time.Second}}}
	start := time.Now()
	rep := p.Run(context.Background(), start.Add(3*time.Second))
	took := time.Since(start)
	if rep.Outcome != OutcomeWarm {
		t.Fatalf("outcome %s (%s), want warm", rep.Outcome, rep.Reason)
	}
	if took > time.Second || rep.Duration > time.Second {
		t.Errorf("the run returned after %s (duration %s): it waited for a probe in flight after its outcome", took, rep.Duration)
	}
	if rep.Failed != 0 {
		t.Errorf("%d failed probes: the probe cut by the outcome counted as the broker's failure", rep.Failed)
	}
}
