package prober

import (
	"context"
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/pkg/pinot"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/sqltext"
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
	p := &Prober{Broker: b, Catalog: schemaCatalog{}, Settings: Settings{
		MinIterations: 20, Concurrency: 2, MultiStage: EngineOff, Shapes: ShapesLimit1, ProbeTimeout: 5 * time.Second}}
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

// The other side of the seen-once run: a run whose multi-stage engine is still
// getting faster when its deadline comes, with probes in flight then, ends
// budget_expired: the probes the deadline cuts, and the lanes emptied by the
// end, never make the verdict warm.
func TestARunAtItsDeadlineWithoutTheEvidenceIsNotWarm(t *testing.T) {
	var mu sync.Mutex
	seen := map[string]int{}
	b := &scriptBroker{answer: func(ctx context.Context, sql string, _ int) pinot.Result {
		if !sqltext.MultiStage(sql) {
			return answerOK
		}
		mu.Lock()
		seen[sql]++
		n := seen[sql]
		mu.Unlock()
		// Each pass over the engine's queries 40% faster than the one before, and
		// one in five probes held until the run ends.
		d := time.Duration(float64(200*time.Millisecond) * math.Pow(0.6, float64(n)))
		if n%5 == 0 {
			d = time.Hour
		}
		select {
		case <-time.After(d):
			return answerOK
		case <-ctx.Done():
			return pinot.Result{Class: pinot.Transient, Message: "probe cancelled"}
		}
	}}
	start := time.Now()
	rep, _ := runScript(t, b, Settings{MinIterations: 20}, 2*time.Second)
	if rep.Outcome != OutcomeBudgetExpired || !strings.Contains(rep.Reason, "the multi-stage shapes together") {
		t.Fatalf("outcome %s (%s), want budget_expired naming the multi-stage shapes", rep.Outcome, rep.Reason)
	}
	if took := time.Since(start); took > 2500*time.Millisecond {
		t.Errorf("the run returned %s after start: past its 2 s deadline", took)
	}
}
