package prober

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/pkg/pinot"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/prober/judge"
)

// arrivals is a broker that answers at once (both engines served) and keeps the
// instant each query reached it: what a broker sees of the run's rate.
type arrivals struct {
	engineBroker
	mu  sync.Mutex
	at  []time.Time
	ids []string // each query's clientQueryId
}

func (a *arrivals) Query(ctx context.Context, q pinot.Query) pinot.Result {
	a.mu.Lock()
	a.at = append(a.at, time.Now())
	a.ids = append(a.ids, q.ClientQueryID)
	a.mu.Unlock()
	return a.engineBroker.Query(ctx, q)
}

func (a *arrivals) count() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.at)
}

// most is the most queries that reached the broker within any window d.
func (a *arrivals) most(d time.Duration) int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return mostWithin(a.at, d)
}

// mostWithin is the most instants of at (in order) within any window d.
func mostWithin(at []time.Time, d time.Duration) int {
	best, j := 0, 0
	for i := range at {
		for j < len(at) && at[j].Sub(at[i]) < d {
			j++
		}
		best = max(best, j-i)
	}
	return best
}

// sent reports whether a query tagged id reached the broker.
func (a *arrivals) sent(id string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, x := range a.ids {
		if x == id {
			return true
		}
	}
	return false
}

// The cap holds every query the run sends — the engine's detection, the
// no-scatter step, both engines' probes, custom queries — to the rate the
// broker sees: 20 a second for 2 s is about 40, and never a burst above it.
func TestMaxRateBoundsEveryQueryOfTheRun(t *testing.T) {
	noLeaks(t)
	const rate, budget = 20.0, 2 * time.Second
	custom := []string{`SELECT COUNT(*) FROM orders`, `SET useMultistageEngine=true; SELECT COUNT(*) FROM orders`}
	for _, c := range []struct {
		name    string
		queries []string
	}{{"default probe, a lane per engine", nil}, {"custom queries", custom}} {
		t.Run(c.name, func(t *testing.T) {
			run := func(maxRate float64, budget time.Duration) (Report, *arrivals) {
				b := &arrivals{engineBroker: engineBroker{mseServed: true}}
				s := Settings{MinIterations: 1 << 30, Concurrency: 4, NoScatterProbes: 100, Queries: c.queries, MaxRate: maxRate}
				p := &Prober{Broker: b, Catalog: schemaCatalog{}, Settings: s, Observer: &recorder{}}
				return p.Run(context.Background(), time.Now().Add(budget)), b
			}
			// Unbounded, the same run sends far more in a quarter of the time.
			if _, b := run(0, budget/4); b.count() < 200 {
				t.Fatalf("unbounded: %d queries in %s; the broker cannot tell a cap from its own speed", b.count(), budget/4)
			}
			rep, b := run(rate, budget)
			n := b.count()
			t.Logf("capped at %v/s for %s: %d queries, at most %d in 250 ms, %d floor probes", rate, budget, n, b.most(250*time.Millisecond), rep.Succeeded)
			// One token at once, then one every 50 ms: 41 at most.
			if n < 34 || n > 42 {
				t.Errorf("%d queries in %s at %v/s, want 40 (34–42)", n, budget, rate)
			}
			// A burst of one: 1 + 250 ms × 20/s, with a query of slack for the clock.
			if m := b.most(250 * time.Millisecond); m > 7 {
				t.Errorf("%d queries within 250 ms at %v/s: a burst above the cap", m, rate)
			}
			if c.queries == nil && !b.sent(pinot.ProbeIDPrefix+"engine") {
				t.Error("the engine's detection never reached the broker")
			}
			// The no-scatter step yields once the plan is made: the tokens go to the floor.
			if rep.Succeeded < 25 {
				t.Errorf("%d floor probes of %d queries: the no-scatter step kept the tokens", rep.Succeeded, n)
			}
			if b.mse.Load() < 2 || b.sse.Load() < 2 {
				t.Errorf("multi-stage %d, single-stage %d queries: one engine starved under the cap", b.mse.Load(), b.sse.Load())
			}
		})
	}
}

// A floor the cap cannot reach within the budget ends the run by its budget,
// on time, and the reason says the rate bounded it.
func TestMaxRateBelowTheFloorEndsByTheBudgetSayingSo(t *testing.T) {
	noLeaks(t)
	b := &arrivals{engineBroker: engineBroker{mseServed: true}}
	s := Settings{MinIterations: 300, Concurrency: 4, NoScatterProbes: 100, MaxRate: 5, Exit: judge.ExitFloor}
	p := &Prober{Broker: b, Catalog: schemaCatalog{}, Settings: s, Observer: &recorder{}}
	start := time.Now()
	rep := p.Run(context.Background(), start.Add(time.Second))
	if took := time.Since(start); rep.Outcome != OutcomeBudgetExpired || took > 1200*time.Millisecond {
		t.Fatalf("outcome %s after %s, want budget_expired by ~1 s", rep.Outcome, took)
	}
	if want := "the floor of 300 probes needs 60 s at 5 probes/s, more than the 1 s budget"; !strings.Contains(rep.Reason, want) {
		t.Errorf("reason %q, want it to say %q", rep.Reason, want)
	}
	if n := b.count(); n > 6 {
		t.Errorf("%d queries in 1 s at 5/s", n)
	}
}
