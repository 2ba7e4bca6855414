package prober

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/internal/fakepinot"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/prober/judge"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/prober/plan"
)

// simClock is the run's clock in these tests: it moves only when the fake broker
// "takes" a probe's latency, so latency curves and budgets are exact and nothing
// waits for real. It starts at the real time because the run's context deadline
// is real: the simulated budget ends first.
type simClock struct {
	mu sync.Mutex
	t  time.Time
}

func newSimClock() *simClock { return &simClock{t: time.Now()} }

func (c *simClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *simClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// simulate makes every answer take latency(sql, n) on the sim clock, n counting
// that query's probes from 0. Concurrency 1 keeps the clock's steps per probe.
func simulate(b *fakepinot.Broker, clk *simClock, latency func(sql string, n int) time.Duration) {
	var mu sync.Mutex
	count := map[string]int{}
	b.SetAnswer(func(sql string) (int, string) {
		mu.Lock()
		n := count[sql]
		count[sql]++
		mu.Unlock()
		clk.Advance(latency(sql, n))
		return 200, fakepinot.OK(1)
	})
}

// convergedRun is a prober with the converged exit on a sim clock; the real
// deadline is far, the simulated one is the budget.
func convergedRun(t *testing.T, s Settings) (*Prober, *fakepinot.Broker, *simClock, *recorder) {
	t.Helper()
	s.Exit = judge.ExitConverged
	p, b, _, rec := cluster(t, s)
	clk := newSimClock()
	p.Now = clk.Now
	return p, b, clk, rec
}

func runFor(p *Prober, clk *simClock, budget time.Duration) Report {
	return p.Run(context.Background(), clk.Now().Add(budget))
}

func TestConvergedExitNeedsFlatWindowsBeyondTheFloor(t *testing.T) {
	for _, tc := range []struct {
		exit    judge.ExitRule
		atLeast int64
		atMost  int64
	}{
		{judge.ExitFloor, 5, 5},
		// The floor of 5 is met long before limit1 has a reference and 3 flat windows.
		{judge.ExitConverged, 40, 40},
	} {
		t.Run(string(tc.exit), func(t *testing.T) {
			p, b, _, rec := cluster(t, Settings{MinIterations: 5, Exit: tc.exit, Tables: []string{"orders"}})
			clk := newSimClock()
			p.Now = clk.Now
			simulate(b, clk, func(string, int) time.Duration { return 4 * ms })
			rep := runFor(p, clk, 15*time.Second)
			if rep.Outcome != OutcomeWarm {
				t.Fatalf("outcome %s (%s), want warm", rep.Outcome, rep.Reason)
			}
			if rep.Succeeded < tc.atLeast || rep.Succeeded > tc.atMost {
				t.Errorf("succeeded %d, want %d..%d", rep.Succeeded, tc.atLeast, tc.atMost)
			}
			if tc.exit == judge.ExitConverged && (len(rec.windows) != 4 || !rec.windows[3].Converged || rec.windows[3].Shape != ShapeLimit1) {
				t.Errorf("windows heard %+v, want 4 of limit1, the last converged", rec.windows)
			}
		})
	}
}

func TestConvergedExitWaitsForTheCurveToFlatten(t *testing.T) {
	p, b, clk, rec := convergedRun(t, Settings{MinIterations: 20, Tables: []string{"orders"}})
	// Cold: 200 ms falling 25% a window for 8 windows, then flat at 200·0.75^8 ≈ 20 ms.
	simulate(b, clk, func(_ string, n int) time.Duration {
		w := min(n/10, 8)
		d := 200 * ms
		for range w {
			d = d * 3 / 4
		}
		return d
	})
	rep := runFor(p, clk, 15*time.Second)
	if rep.Outcome != OutcomeWarm {
		t.Fatalf("outcome %s: %s", rep.Outcome, rep.Reason)
	}
	// 9 windows to reach the flat level (which is its own reference), then 3 flat ones.
	if rep.Succeeded != 120 {
		t.Errorf("succeeded %d, want 120: 80 falling, the reference window, 3 flat windows", rep.Succeeded)
	}
	last := rec.windows[len(rec.windows)-1]
	if last.InARow != 3 || last.Latest != last.Best || last.Latest > 21*ms {
		t.Errorf("last window %+v, want 3 in a row at the best ~20ms", last)
	}
	if !strings.Contains(rep.Reason, "floor of 20 successful probes reached; latency flat on limit1") {
		t.Errorf("reason %q", rep.Reason)
	}
}

func TestConvergedExitBudgetSaysWhatWasMissing(t *testing.T) {
	p, b, clk, _ := convergedRun(t, Settings{MinIterations: 1000, Tables: []string{"orders"}})
	// Each window 30% faster than the one before: still falling for the whole budget.
	simulate(b, clk, func(_ string, n int) time.Duration {
		return time.Duration(float64(100*ms) * math.Pow(0.7, float64(n/10)))
	})
	rep := runFor(p, clk, 2*time.Second)
	if rep.Outcome != OutcomeBudgetExpired {
		t.Fatalf("outcome %s after %d probes, want budget_expired", rep.Outcome, rep.Succeeded)
	}
	want := fmt.Sprintf("budget ran out with %d of 1000 successful probes; latency not yet flat on limit1 (0 of 3 flat windows)", rep.Succeeded)
	if rep.Reason != want {
		t.Errorf("reason\n got %q\nwant %q", rep.Reason, want)
	}
}

func TestConvergedExitIgnoresADroppedQueryShape(t *testing.T) {
	good, bad := "SELECT COUNT(*) FROM orders", "SELECT nosuch FROM orders"
	p, b, clk, rec := convergedRun(t, Settings{MinIterations: 10, Queries: []string{good, bad}})
	b.SetAnswer(func(sql string) (int, string) {
		clk.Advance(5 * ms)
		if sql == bad {
			return 200, fakepinot.Error(710, "QueryValidationError", "Unknown columnName 'nosuch'")
		}
		return 200, fakepinot.OK(1)
	})
	rep := runFor(p, clk, 15*time.Second)
	if rep.Outcome != OutcomeWarm || rep.Succeeded != 40 {
		t.Fatalf("outcome %s, %d successes (%s): want warm on custom_1 alone after 40", rep.Outcome, rep.Succeeded, rep.Reason)
	}
	if _, ok := rec.dropped[bad]; !ok {
		t.Errorf("bad query not dropped")
	}
}

func TestPlanNamesShapes(t *testing.T) {
	p, _, _, _ := cluster(t, Settings{MaxTables: 5})
	made, err := plan.Planner{Catalog: p.Catalog, Settings: p.Settings.Plan()}.Plan(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(made.Shapes) != len(made.Queries) || len(made.Queries) != 3 {
		t.Fatalf("queries %q shapes %q, want 3 of each", made.Queries, made.Shapes)
	}
	if got := made.ShapeNames(); len(got) != 1 || got[0] != ShapeLimit1 {
		t.Errorf("default probe shapes %q, want [limit1] across every leg", got)
	}
	custom, _ := plan.Planner{Settings: plan.Settings{Queries: []string{"SELECT 1 FROM a", "SELECT 2 FROM b"}}}.Plan(context.Background())
	if got := strings.Join(custom.ShapeNames(), ","); got != "custom_1,custom_2" {
		t.Errorf("custom shapes %q", got)
	}
	// A hand-built plan without names still gets one shape per query; a repeated
	// query keeps its first shape, so no shape waits for probes it cannot get.
	hand := Plan{Custom: true, Queries: []string{"A", "B", "A"}}
	if got := strings.Join(hand.ShapeNames(), ","); got != "custom_1,custom_2" {
		t.Errorf("hand-built plan shapes %q", got)
	}
}

// compileSource is a JVM whose compile time grows by step per reading while busy
// says so, then stops.
type compileSource struct {
	reads atomic.Int64
	busy  func(read int64) bool
	step  time.Duration
	total atomic.Int64
	err   error
}

func (c *compileSource) CompileTime(context.Context) (time.Duration, error) {
	n := c.reads.Add(1)
	if c.err != nil {
		return 0, c.err
	}
	if c.busy(n) {
		c.total.Add(int64(c.step))
	}
	return time.Duration(c.total.Load()), nil
}

// jitRun is a converged-exit run on the real clock (rates need time between
// readings) with readings every millisecond.
func jitRun(t *testing.T, src *compileSource) (*Prober, *recorder) {
	t.Helper()
	p, _, _, rec := cluster(t, Settings{MinIterations: 1, Exit: judge.ExitConverged, Tables: []string{"orders"},
		JIT: judge.JITRule{Every: time.Millisecond, Span: time.Millisecond}})
	p.Compile = src
	return p, rec
}

func TestConvergedExitWaitsForTheJITToGoQuiet(t *testing.T) {
	// Busy for the first 200 readings: well past the 40 probes limit1 needs.
	src := &compileSource{busy: func(n int64) bool { return n <= 200 }, step: 50 * ms}
	p, rec := jitRun(t, src)
	rep := p.Run(context.Background(), time.Now().Add(15*time.Second))
	if rep.Outcome != OutcomeWarm {
		t.Fatalf("outcome %s: %s", rep.Outcome, rep.Reason)
	}
	if n := src.reads.Load(); n < 200+3 {
		t.Fatalf("warm after %d readings, before the JIT went quiet (203)", n)
	}
	rec.mu.Lock()
	last := rec.jit[len(rec.jit)-1]
	rec.mu.Unlock()
	if !last.Quiet || last.Peak <= 0 || last.Rate > last.Peak*0.1 {
		t.Errorf("last reading %+v, want quiet under a tenth of the peak", last)
	}
	if !strings.Contains(rep.Reason, "; JIT compile rate 0.000 s/s, 0% of its ") {
		t.Errorf("reason %q does not report the quiet JIT", rep.Reason)
	}
}

func TestConvergedExitBudgetWhileTheJITCompiles(t *testing.T) {
	src := &compileSource{busy: func(int64) bool { return true }, step: 50 * ms}
	p, _ := jitRun(t, src)
	rep := p.Run(context.Background(), time.Now().Add(300*time.Millisecond))
	if rep.Outcome != OutcomeBudgetExpired || !strings.Contains(rep.Reason, "JIT still compiling") {
		t.Fatalf("outcome %s reason %q, want budget_expired naming the JIT", rep.Outcome, rep.Reason)
	}
	if rep.Succeeded < 40 {
		t.Errorf("only %d probes: the budget, not the latency rule, must be what held it", rep.Succeeded)
	}
}

func TestFailingJITSourceIsIgnoredForTheRun(t *testing.T) {
	src := &compileSource{err: errors.New("reading JVM metrics from http://127.0.0.1:1/metrics: connection refused")}
	p, rec := jitRun(t, src)
	rep := p.Run(context.Background(), time.Now().Add(15*time.Second))
	if rep.Outcome != OutcomeWarm {
		t.Fatalf("outcome %s: %s; a failing JIT source must not hold the exit", rep.Outcome, rep.Reason)
	}
	if n := src.reads.Load(); n != judge.DefaultJITFailures {
		t.Errorf("source read %d times, want %d (the failures given up after) then ignored", n, judge.DefaultJITFailures)
	}
	if len(rec.jitErrs) != 1 || !strings.Contains(rep.Reason, "JIT signal ignored") {
		t.Errorf("errors heard %v, reason %q", rec.jitErrs, rep.Reason)
	}
}

func TestFloorExitStillReportsTheJIT(t *testing.T) {
	src := &compileSource{busy: func(int64) bool { return true }, step: 50 * ms}
	p, _, _, rec := cluster(t, Settings{MinIterations: 300, Tables: []string{"orders"}, JIT: judge.JITRule{Every: time.Millisecond, Span: time.Millisecond}})
	p.Compile = src
	rep := p.Run(context.Background(), time.Now().Add(15*time.Second))
	if rep.Outcome != OutcomeWarm {
		t.Fatalf("outcome %s: the floor exit ignores the JIT", rep.Outcome)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.jit) == 0 {
		t.Fatal("no JIT readings reported")
	}
}
