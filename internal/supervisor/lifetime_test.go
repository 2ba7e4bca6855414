package supervisor

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/warmup-sidecar/warmup-sidecar/internal/fakepinot"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/gatehttp"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/prober"
)

// TestFaultSlowHealthWhileProbingOpensByTheBudget: the warmup itself loads the
// broker so that /health answers slower than the health timeout for as long as
// probes are in flight (a 2-vCPU broker at 100% CPU). Slow is not gone: the one
// run keeps its budget, and fail-open opens the gate by it; fail-closed keeps the
// gate closed, but the run still ends by its budget, not cut short as failed.
func TestFaultSlowHealthWhileProbingOpensByTheBudget(t *testing.T) {
	opt := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, opt) })
	const budget = 2 * time.Second
	for _, failClosed := range []bool{false, true} {
		fb := newFaultBroker(t)
		fb.broker.SetHealth(func() (int, string) {
			if fb.broker.InFlight() > 0 {
				time.Sleep(400 * time.Millisecond) // past the 300ms HealthTimeout
			}
			return 200, "OK"
		})
		fb.broker.SetDelay(20 * time.Millisecond)
		fs := newFaultSup(t, fb.broker.URL(), fb.ctrl.URL(), Options{Enabled: true, Budget: budget, FailClosed: failClosed, Rearm: true,
			Settings: prober.Settings{MinIterations: 1_000_000, Concurrency: 2, MaxTables: 5, ProbeTimeout: time.Second}}, nil)
		fs.run(t)
		limit := budget + 500*time.Millisecond
		if failClosed {
			waitFor(t, limit+2*time.Second, "the run's outcome", func() bool { total, _ := fs.runs(); return total >= 1 })
		} else if took := waitFor(t, limit+4*time.Second, "gate open", fs.sup.Gate.IsOpen); took > limit {
			t.Errorf("fail-open: gate opened %s after start, want by the budget (%s) + 500ms", took, budget)
		}
		if _, by := fs.runs(); by[prober.OutcomeBudgetExpired] != 1 || by[prober.OutcomeFailed] != 0 {
			t.Errorf("failClosed=%v: runs %v, want one budget_expired run and none cut as failed; logs:\n%s",
				failClosed, by, tail(fs.logs.String(), 2000))
		}
		if failClosed && fs.sup.Gate.IsOpen() {
			t.Error("fail-closed: gate open for an unwarm broker")
		}
		fs.stop(t)
		fb.close()
	}
}

// TestStartTimeChangeIsARestart: a broker whose /start-time changes restarted,
// even though every /health poll answered 200 (the restart fell between polls):
// readiness is withdrawn and a new warmup runs.
func TestStartTimeChangeIsARestart(t *testing.T) {
	opt := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, opt) })
	fb := newFaultBroker(t)
	first, second := "2026-12-01T10:00:00Z", "2026-12-01T10:05:00Z"
	fb.broker.SetStartTime(first)
	fs := newFaultSup(t, fb.broker.URL(), fb.ctrl.URL(), Options{Enabled: true, Budget: 5 * time.Second, Rearm: true,
		Settings: prober.Settings{MinIterations: 20, Concurrency: 2, MaxTables: 5, ProbeTimeout: time.Second}}, nil)
	starts := &brokerStarts{}
	fs.sup.AOTCache = starts
	fs.run(t)
	waitFor(t, 5*time.Second, "first warm", fs.sup.Gate.IsOpen)
	if n := starts.count(); n != 1 {
		t.Errorf("broker starts heard before the restart: %d, want 1", n)
	}
	before := fb.probes()
	fb.broker.SetStartTime(second)
	waitFor(t, 5*time.Second, "a second warm run", func() bool {
		_, by := fs.runs()
		return by[prober.OutcomeWarm] == 2 && fs.sup.Gate.IsOpen()
	})
	if n := fb.probes() - before; n < 20 {
		t.Errorf("the restarted broker got %d probes, want the floor (20)", n)
	}
	if n := starts.count(); n != 2 {
		t.Errorf("broker starts heard: %d, want 2 (the AOT log is read after each start)", n)
	}
	if !strings.Contains(fs.logs.String(), "broker restarted") {
		t.Errorf("restart not logged:\n%s", tail(fs.logs.String(), 2000))
	}
	fs.stop(t)
	fb.close()
}

// TestOutageWithUnchangedStartTimeIsNotARestart: /health answers 503 for longer
// than GoneAfter polls, so readiness is withdrawn; but the broker comes back with
// the same /start-time: the same JVM, still warm. The gate reopens without a
// second warmup.
func TestOutageWithUnchangedStartTimeIsNotARestart(t *testing.T) {
	opt := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, opt) })
	fb := newFaultBroker(t)
	fb.broker.SetStartTime("2026-12-01T10:00:00Z")
	fs := newFaultSup(t, fb.broker.URL(), fb.ctrl.URL(), Options{Enabled: true, Budget: 5 * time.Second, Rearm: true,
		Settings: prober.Settings{MinIterations: 20, Concurrency: 2, MaxTables: 5, ProbeTimeout: time.Second}}, nil)
	starts := &brokerStarts{}
	fs.sup.AOTCache = starts
	fs.run(t)
	waitFor(t, 5*time.Second, "warm", fs.sup.Gate.IsOpen)
	before := fb.probes()
	fb.broker.SetStatus("BAD") // 503 "Pinot broker status is BAD"
	waitFor(t, 2*time.Second, "readiness withdrawn", func() bool { return !fs.sup.Gate.IsOpen() })
	fb.broker.SetStatus("GOOD")
	waitFor(t, 2*time.Second, "gate reopened", fs.sup.Gate.IsOpen)
	if n := fb.probes() - before; n != 0 {
		t.Errorf("%d probes sent to a broker that did not restart", n)
	}
	if _, by := fs.runs(); by[prober.OutcomeWarm] != 1 {
		t.Errorf("runs %v, want the one warm run", by)
	}
	if p := fs.sup.Gate.Phase(); p != gatehttp.PhaseWarm {
		t.Errorf("phase %s, want warm", p)
	}
	if n := starts.count(); n != 1 {
		t.Errorf("broker starts heard: %d, want 1 (an outage with the same start time is not a start)", n)
	}
	fs.stop(t)
	fb.close()
}

// brokerStarts counts the broker starts the supervisor reports.
type brokerStarts struct {
	mu sync.Mutex
	n  int
}

func (b *brokerStarts) BrokerStarted(context.Context) {
	b.mu.Lock()
	b.n++
	b.mu.Unlock()
}

func (b *brokerStarts) count() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.n
}

// stepClock is a fake clock whose Sleep returns at once, moving the clock on.
// Sleeps of block or longer stand for waits the test does not want to pass (the
// health watch): they end only with their context.
type stepClock struct {
	mu    sync.Mutex
	now   time.Time
	slept []time.Duration
	block time.Duration
}

func (c *stepClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *stepClock) Sleep(ctx context.Context, d time.Duration) bool {
	if d >= c.block {
		<-ctx.Done()
		return false
	}
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.slept = append(c.slept, d)
	c.mu.Unlock()
	return ctx.Err() == nil
}

func (c *stepClock) sleeps() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.slept)
}

// TestFailClosedRerunsBackOff: a run that ends at once (every WARMUP_QUERY
// rejected) under fail-closed is followed by a pause that doubles from 1s to 30s,
// not by the next run at once; "still not warm" is logged at most once per 30s.
func TestFailClosedRerunsBackOff(t *testing.T) {
	opt := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, opt) })
	fb := newFaultBroker(t)
	fb.broker.SetAnswer(answer(200, fakepinot.Error(150, "SQLParsingError", "Encountered \"SELEC\"")))
	fs := newFaultSup(t, fb.broker.URL(), fb.ctrl.URL(), Options{Enabled: true, Budget: 5 * time.Second, FailClosed: true, Rearm: true,
		Settings: prober.Settings{MinIterations: 50, Concurrency: 2, MaxTables: 5, ProbeTimeout: time.Second, Queries: []string{"SELEC 1 FROM t"}}}, nil)
	// The clock starts at the real time: a run's deadline is a real context deadline.
	clock := &stepClock{now: time.Now(), block: time.Hour}
	fs.sup.Now, fs.sup.Sleep, fs.sup.PollEvery = clock.Now, clock.Sleep, time.Hour
	fs.run(t)
	const runs = 12
	waitFor(t, 10*time.Second, fmt.Sprintf("%d runs", runs), func() bool { total, _ := fs.runs(); return total >= runs })
	fs.stop(t)
	total, by := fs.runs()
	if by[prober.OutcomeFailed] != total {
		t.Fatalf("runs %v, want every run failed (all queries rejected)", by)
	}
	var want []time.Duration
	for _, s := range []int{1, 2, 4, 8, 16, 30, 30, 30, 30, 30, 30} {
		want = append(want, time.Duration(s)*time.Second)
	}
	got := clock.sleeps()
	if len(got) < len(want) || !slices.Equal(got[:len(want)], want) {
		t.Fatalf("pauses between runs %v, want %v", got, want)
	}
	var elapsed time.Duration
	for _, d := range got[:int(total)-1] {
		elapsed += d
	}
	lines := strings.Count(fs.logs.String(), `"level":"WARN","msg":"broker not warm and WARMUP_FAIL_CLOSED=true`)
	if most := 1 + int(elapsed/(30*time.Second)); lines == 0 || lines > most {
		t.Errorf("%d 'still not warm' warnings over %d runs and %s, want 1..%d (once per 30s)", lines, int(total), elapsed, most)
	}
}

// TestHungStartTimeDoesNotDelayTheBudget: the budget counts from /health 200,
// not from when /start-time answered: a /start-time that hangs (until the
// health timeout, 1 s) must not push the fail-open gate past the budget.
func TestHungStartTimeDoesNotDelayTheBudget(t *testing.T) {
	h := newHarness(t, Options{Enabled: true, Budget: time.Second, Rearm: true, Settings: prober.Settings{MinIterations: 1_000_000}})
	release := make(chan struct{})
	t.Cleanup(func() { close(release) }) // before the harness's own cleanup closes the broker
	h.broker.SetStartTimeAnswer(func() (int, string) { <-release; return 200, "2026-12-01T10:00:00Z" })
	t0 := time.Now() // the broker is GOOD from the start: /health 200 comes after this
	h.start(t)
	took := waitFor(t, 5*time.Second, "gate open", h.sup.Gate.IsOpen)
	t.Logf("gate opened %v after start (budget 1s, /start-time hung)", time.Since(t0).Round(time.Millisecond))
	if took > 1500*time.Millisecond {
		t.Errorf("gate opened %v after start: want by the budget (1s) + 500ms from /health 200", took.Round(time.Millisecond))
	}
}
