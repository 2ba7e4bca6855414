package prober

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/pkg/pinot"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/prober/judge"
)

// The single-stage warmup does not wait for a slow multi-stage engine: its lane
// keeps going while every multi-stage probe takes 300 ms. In shared rounds the
// single-stage probes got about one per slow answer.
func TestSlowMultiStageEngineDoesNotStarveSingleStage(t *testing.T) {
	b := &engineBroker{mseServed: true, mseDelay: 300 * time.Millisecond}
	s := Settings{MinIterations: 1_000_000, Concurrency: 4, ProbeTimeout: 2 * time.Second, MultiStage: EngineOn, NoScatterProbes: -1}
	p := &Prober{Broker: b, Catalog: schemaCatalog{}, Settings: s, Observer: &recorder{}}
	rep := p.Run(context.Background(), time.Now().Add(1500*time.Millisecond))
	if rep.Outcome != OutcomeBudgetExpired {
		t.Fatalf("outcome %s, want budget_expired (the floor is out of reach)", rep.Outcome)
	}
	sse, mse := b.sse.Load(), b.mse.Load()
	t.Logf("%d single-stage, %d multi-stage probes in 1.5 s", sse, mse)
	// Over 1 s of probing, the multi-stage lane's workers answer ≤ ~4 each.
	if mse == 0 || sse < 50*mse {
		t.Fatalf("%d single-stage probes for %d multi-stage ones: the slow engine held the workers", sse, mse)
	}
}

// A broker refusing everything sees one probe at a time per engine after the
// first round's worth, at a doubling wait: not Concurrency workers hammering it.
func TestRefusingBrokerIsPausedNotHammered(t *testing.T) {
	var n atomic.Int64
	b := brokerFunc(func(context.Context, pinot.Query) pinot.Result {
		n.Add(1)
		return pinot.Result{Class: pinot.Transient, HTTPStatus: 503, Message: "down"}
	})
	s := Settings{MinIterations: 10, Concurrency: 16, ProbeTimeout: time.Second, Queries: nil, Tables: []string{"orders"}, NoScatterProbes: -1}
	p := &Prober{Broker: b, Catalog: schemaCatalog{}, Settings: s, Observer: &recorder{}}
	rep := p.Run(context.Background(), time.Now().Add(time.Second))
	if rep.Outcome != OutcomeBudgetExpired {
		t.Fatalf("outcome %s", rep.Outcome)
	}
	// The engine check; each lane's round's worth (16 in all) and the probes its
	// other workers had in flight when its pause began (at most 16 more); then
	// one try per pause and lane: 20+40+80+160+320 ms fill the second (≤ 10).
	// Without the pause: thousands.
	if got := n.Load(); got > 45 {
		t.Fatalf("%d probes in 1 s against a refusing broker", got)
	}
	t.Logf("%d probes in 1 s", n.Load())
}

type brokerFunc func(context.Context, pinot.Query) pinot.Result

func (f brokerFunc) Query(ctx context.Context, q pinot.Query) pinot.Result { return f(ctx, q) }

// A broker whose multi-stage engine refuses every probe at once (its servers'
// mailbox port blocked, say) while the single-stage one answers: the
// multi-stage lane pauses and backs off on its own, as a refusing broker would
// be, instead of the successes of the other lane keeping it sending failures
// as fast as they come back. The single-stage lane is not held.
func TestRefusingEnginePausesItsLaneOnly(t *testing.T) {
	b := &engineBroker{mseServed: true, mseFails: true}
	s := Settings{MinIterations: 1_000_000, Concurrency: 4, ProbeTimeout: time.Second, MultiStage: EngineOn, NoScatterProbes: -1, Exit: judge.ExitFloor}
	p := &Prober{Broker: b, Catalog: schemaCatalog{}, Settings: s, Observer: &recorder{}}
	rep := p.Run(context.Background(), time.Now().Add(time.Second))
	if rep.Outcome != OutcomeBudgetExpired {
		t.Fatalf("outcome %s", rep.Outcome)
	}
	sse, mse := b.sse.Load(), b.mse.Load()
	t.Logf("1 s: %d single-stage, %d multi-stage probes (the detection included)", sse, mse)
	// The detection, the lane's 2 workers' failures and the probes in flight
	// when the pause began, then one try per pause: 20+40+80+160+320 ms fill
	// the second. Without a pause of its own: over a thousand.
	if mse > 20 {
		t.Fatalf("%d multi-stage probes in 1 s against an engine refusing them all", mse)
	}
	if sse < 1000 {
		t.Fatalf("%d single-stage probes in 1 s: the refusing engine held the other lane", sse)
	}
}
