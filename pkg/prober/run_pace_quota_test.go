package prober

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/warmup-sidecar/warmup-sidecar/internal/fakepinot"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/pinot"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/prober/schedule"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/sqltext"
)

// guavaLimiter is the broker's per-table limiter: Guava's SmoothBursty RateLimiter
// (one second of stored permits), asked with tryAcquire() — a refused query takes
// no permit, so an unpaced prober still gets `rate` successes a second, and
// everything above that is a 429.
type guavaLimiter struct {
	mu       sync.Mutex
	rate     float64
	stored   float64
	nextFree time.Time
}

func newGuava(rate float64) *guavaLimiter { return &guavaLimiter{rate: rate, nextFree: time.Now()} }

func (g *guavaLimiter) tryAcquire() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	now := time.Now()
	if now.Before(g.nextFree) {
		return false
	}
	g.stored = min(g.rate, g.stored+now.Sub(g.nextFree).Seconds()*g.rate)
	g.nextFree = now
	fromStored := min(1, g.stored)
	g.stored -= fromStored
	// A tiny rate's next permit is beyond what a Duration holds: a century will do.
	wait := min((1-fromStored)/g.rate*float64(time.Second), float64(100*365*24*time.Hour))
	g.nextFree = now.Add(time.Duration(wait))
	return true
}

// quotaBroker is a broker whose typed tables may carry a per-broker QPS quota:
// /debug/tables/queryQuota/{typed} answers it the way Pinot does (text, Java
// double, "0.0" for none), and queries above it answer Pinot's error 429 inside
// HTTP 200.
type quotaBroker struct {
	srv      *httptest.Server
	routing  map[string]map[string][]string
	quota    map[string]float64 // typed table → per-broker QPS
	limiters map[string]*guavaLimiter
	delay    time.Duration

	ok, tooMany atomic.Int64
	quotaAsks   atomic.Int64
	mu          sync.Mutex
	okAt        map[string][]time.Time // typed table → success instants
}

func newQuotaBroker(t *testing.T, routing map[string]map[string][]string, quota map[string]float64, delay time.Duration) *quotaBroker {
	t.Helper()
	b := &quotaBroker{routing: routing, quota: quota, limiters: map[string]*guavaLimiter{}, delay: delay, okAt: map[string][]time.Time{}}
	for typed, q := range quota {
		b.limiters[typed] = newGuava(q)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /health", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, "OK") })
	mux.HandleFunc("GET /debug/routingTable/{t}", func(w http.ResponseWriter, r *http.Request) {
		name := r.PathValue("t")
		var parts []string
		for typed, servers := range b.routing {
			if typed == name || fakepinot.RawName(typed) == name {
				var ss []string
				for s := range servers {
					ss = append(ss, fmt.Sprintf("%q:[\"seg\"]", s))
				}
				parts = append(parts, fmt.Sprintf("%q:{%s}", typed, strings.Join(ss, ",")))
			}
		}
		if len(parts) == 0 {
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprintf(w, `{"code":404,"error":"Cannot find routing for table: %s"}`, name)
			return
		}
		fmt.Fprintf(w, "{%s}", strings.Join(parts, ","))
	})
	mux.HandleFunc("GET /debug/tables/queryQuota/{t}", func(w http.ResponseWriter, r *http.Request) {
		b.quotaAsks.Add(1)
		w.Header().Set("Content-Type", "text/plain")
		q := b.quota[r.PathValue("t")] // a raw name is not a key: "0.0", as in Pinot
		fmt.Fprint(w, strconvJava(q))
	})
	mux.HandleFunc("POST /query/sql", func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if b.delay > 0 {
			time.Sleep(b.delay)
		}
		tables := schedule.TypedCandidates(sqltext.Tables(extractSQL(string(body))))
		for _, typed := range tables {
			if l := b.limiters[typed]; l != nil && !l.tryAcquire() {
				b.tooMany.Add(1)
				fmt.Fprint(w, fakepinot.Error(pinot.CodeTooManyRequests, "TooManyRequestsError",
					"Request 1: query exceeds query quota for table: "+typed))
				return
			}
		}
		b.ok.Add(1)
		now := time.Now()
		b.mu.Lock()
		for _, typed := range tables {
			if _, limited := b.limiters[typed]; limited {
				b.okAt[typed] = append(b.okAt[typed], now)
			}
		}
		b.mu.Unlock()
		fmt.Fprint(w, fakepinot.OK(1))
	})
	b.srv = httptest.NewServer(mux)
	t.Cleanup(b.srv.Close)
	return b
}

// maxInWindow is the most successes a table had within any window d.
func (b *quotaBroker) maxInWindow(typed string, d time.Duration) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return mostWithin(b.okAt[typed], d)
}

// strconvJava prints a double the way Java's String.valueOf does for these values.
func strconvJava(v float64) string {
	s := fmt.Sprintf("%v", v)
	if !strings.ContainsAny(s, ".eE") {
		s += ".0"
	}
	return s
}

func extractSQL(body string) string {
	_, after, _ := strings.Cut(body, `"sql":"`)
	sql, _, _ := strings.Cut(after, `","`)
	return strings.ReplaceAll(sql, `\"`, `"`)
}

// noLeaks fails the test if it leaves goroutines behind; register it first so it
// runs after every other cleanup (servers closed, idle connections dropped).
func noLeaks(t *testing.T) {
	t.Helper()
	opt := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, opt) })
}

// quotaProber builds a prober over b with its own HTTP client (closed at cleanup).
func quotaProber(t *testing.T, b *quotaBroker, s Settings, paced bool) *Prober {
	t.Helper()
	hc := pinot.DefaultHTTPClient()
	t.Cleanup(hc.CloseIdleConnections)
	cl := pinot.New(pinot.Options{BrokerURL: b.srv.URL, HTTPClient: hc})
	if s.MaxTables == 0 {
		s.MaxTables = 5
	}
	if s.ProbeTimeout == 0 {
		s.ProbeTimeout = time.Second
	}
	p := &Prober{Broker: cl, Catalog: cl, Settings: s, Observer: &recorder{}}
	if paced {
		p.Quotas = cl
	}
	return p
}

func TestPacingKeepsOneTableUnderItsQuota(t *testing.T) {
	noLeaks(t)
	const quota = 20.0
	routing := map[string]map[string][]string{"t_OFFLINE": {"Server_1": {"s"}}}
	run := func(paced bool) (Report, *quotaBroker, *recorder) {
		b := newQuotaBroker(t, routing, map[string]float64{"t_OFFLINE": quota}, 0)
		p := quotaProber(t, b, Settings{MinIterations: 30, Concurrency: 4, Tables: []string{"t"}}, paced)
		rec := &recorder{}
		p.Observer = rec
		return p.Run(context.Background(), time.Now().Add(4*time.Second)), b, rec
	}

	rep, b, rec := run(true)
	if rep.Outcome != OutcomeWarm {
		t.Fatalf("paced: outcome %s (%v), want warm", rep.Outcome, rep.Err)
	}
	if got := rec.paced["t_OFFLINE"]; got != [2]float64{quota, quota * schedule.QuotaShare} {
		t.Errorf("Paced(t_OFFLINE) = %v, want quota %v at rate %v", got, quota, quota*schedule.QuotaShare)
	}
	if n := b.tooMany.Load(); n > 1 {
		t.Errorf("paced run drew %d 429s, want at most 1", n)
	}
	// 30 successes at 16/s take ~1.9s; never more than the quota in any second.
	if n := b.maxInWindow("t_OFFLINE", time.Second); n > int(quota) {
		t.Errorf("paced run: %d successes within one second, quota %v", n, quota)
	}
	if rep.Duration < 1500*time.Millisecond {
		t.Errorf("paced run took %s for 30 probes at 16/s: not paced", rep.Duration)
	}

	// Without the quota endpoint (a broker before 1.3) the pace is learned from
	// the first refusals: a handful of 429s, not one per probe over the quota.
	rep, b, rec = run(false)
	t.Logf("learned: outcome %s, %d ok, %d × 429 in %s, paced %v", rep.Outcome, b.ok.Load(), b.tooMany.Load(), rep.Duration.Round(time.Millisecond), rec.paced)
	if rep.Outcome != OutcomeWarm {
		t.Fatalf("learned: outcome %s, want warm", rep.Outcome)
	}
	if n := b.tooMany.Load(); n == 0 || n > 10 {
		t.Errorf("learned run drew %d 429s, want a few (it learns from them) and at most 10", n)
	}
	if _, ok := rec.paced["t_OFFLINE"]; !ok {
		t.Errorf("no pace learned for t_OFFLINE: %v", rec.paced)
	}
}

func TestPacingSpreadsOverTablesWithoutQuota(t *testing.T) {
	noLeaks(t)
	// Two tables on different servers: "tight" has a 2 QPS quota, "free" none. The
	// default probe alternates them; unpaced, every other probe is a 429.
	routing := map[string]map[string][]string{
		"tight_OFFLINE": {"Server_1": {"s"}},
		"free_OFFLINE":  {"Server_2": {"s"}},
	}
	quotas := map[string]float64{"tight_OFFLINE": 2}
	s := Settings{MinIterations: 1 << 30, Concurrency: 2, Tables: []string{"tight", "free"}}
	const budget = time.Second
	const delay = 4 * time.Millisecond // the broker's serve time per probe

	// Without the quota endpoint: the tight table's pace is learned from its
	// first refusals and the rest of the budget goes to "free".
	b := newQuotaBroker(t, routing, quotas, delay)
	learned := quotaProber(t, b, s, false).Run(context.Background(), time.Now().Add(budget))
	t.Logf("learned, floor unreachable: %d ok, %d × 429", learned.Succeeded, b.tooMany.Load())
	if n := b.tooMany.Load(); n > learned.Succeeded/20 {
		t.Fatalf("learned run drew %d 429s for %d successes: the budget went on refusals", n, learned.Succeeded)
	}

	// With the quota known up front: a floor of 90% of what the learned run
	// managed, reached with at most one refusal.
	s.MinIterations = int(float64(learned.Succeeded) * 0.9)
	b = newQuotaBroker(t, routing, quotas, delay)
	paced := quotaProber(t, b, s, true).Run(context.Background(), time.Now().Add(budget))
	if paced.Outcome != OutcomeWarm {
		t.Fatalf("paced: outcome %s with %d ok, %d × 429; want warm at floor %d", paced.Outcome, paced.Succeeded, b.tooMany.Load(), s.MinIterations)
	}
	if n := b.tooMany.Load(); n > 1 {
		t.Errorf("paced run drew %d 429s, want at most 1", n)
	}
	if n := b.maxInWindow("tight_OFFLINE", time.Second); n < 1 || n > 2 {
		t.Errorf("tight table got %d successes in a second, want 1..2: paced, not starved", n)
	}

}

func TestPacingCustomQueriesBySmallestQuotaTheyName(t *testing.T) {
	noLeaks(t)
	// A raw name draws on both legs' quotas (the broker checks both); the join
	// also names a second table. The REALTIME leg's 10 QPS is the smallest.
	routing := map[string]map[string][]string{"orders_OFFLINE": {"S1": {"s"}}, "orders_REALTIME": {"S2": {"s"}}, "users_OFFLINE": {"S3": {"s"}}}
	quotas := map[string]float64{"orders_OFFLINE": 50, "orders_REALTIME": 10, "users_OFFLINE": 40}
	b := newQuotaBroker(t, routing, quotas, 0)
	q := `SELECT COUNT(*) FROM orders o JOIN "users_OFFLINE" u ON o.uid = u.id`
	p := quotaProber(t, b, Settings{MinIterations: 12, Concurrency: 3, Queries: []string{q}}, true)
	rep := p.Run(context.Background(), time.Now().Add(3*time.Second))
	if rep.Outcome != OutcomeWarm {
		t.Fatalf("outcome %s (%v), %d × 429", rep.Outcome, rep.Err, b.tooMany.Load())
	}
	if n := b.tooMany.Load(); n > 1 {
		t.Errorf("%d 429s, want at most 1", n)
	}
	// 12 probes at 8/s: ~1.4s.
	if rep.Duration < time.Second {
		t.Errorf("run took %s: not paced by the 10 QPS leg", rep.Duration)
	}
}

func TestPacingIgnoresQuotaLookupFailures(t *testing.T) {
	noLeaks(t)
	hits := atomic.Int64{}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /debug/routingTable/{t}", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprint(w, `{"t_OFFLINE":{"S1":["s"]}}`)
	})
	mux.HandleFunc("GET /debug/tables/queryQuota/{t}", func(w http.ResponseWriter, _ *http.Request) {
		hits.Add(1)
		w.WriteHeader(http.StatusInternalServerError)
		fmt.Fprint(w, "<html><body>boom</body></html>")
	})
	mux.HandleFunc("POST /query/sql", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, fakepinot.OK(1)) })
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	hc := pinot.DefaultHTTPClient()
	t.Cleanup(hc.CloseIdleConnections)
	cl := pinot.New(pinot.Options{BrokerURL: srv.URL, HTTPClient: hc})
	p := &Prober{Broker: cl, Quotas: cl, Observer: &recorder{},
		Catalog: cl, Settings: Settings{MinIterations: 200, Concurrency: 2, MaxTables: 5, ProbeTimeout: time.Second, Tables: []string{"t"}}}
	rep := p.Run(context.Background(), time.Now().Add(3*time.Second))
	if rep.Outcome != OutcomeWarm || hits.Load() != 1 {
		t.Fatalf("outcome %s, quota asks %d; want warm, unpaced, one ask", rep.Outcome, hits.Load())
	}
	if len(p.Observer.(*recorder).paced) != 0 {
		t.Errorf("paced on a failed lookup: %v", p.Observer.(*recorder).paced)
	}
}

func TestPacedRunEndsByItsDeadline(t *testing.T) {
	noLeaks(t)
	// A 0.5 QPS quota: the second slot is 2.5s away, past the budget. The run must
	// not sleep past its deadline waiting for it. A quota of 1e-11 QPS puts the
	// second slot beyond what a time.Duration holds: still one probe, not unpaced.
	routing := map[string]map[string][]string{"t_OFFLINE": {"S1": {"s"}}}
	for _, c := range []struct {
		custom bool
		quota  float64
	}{{false, 0.5}, {true, 0.5}, {false, 1e-11}, {true, 1e-11}} {
		custom := c.custom
		b := newQuotaBroker(t, routing, map[string]float64{"t_OFFLINE": c.quota}, 0)
		// Off: the engine's detection probe would be one more query the broker counts.
		s := Settings{MinIterations: 100, Concurrency: 4, Tables: []string{"t"}, MultiStage: EngineOff}
		if custom {
			s.Queries = []string{`SELECT * FROM t_OFFLINE LIMIT 1`}
		}
		start := time.Now()
		rep := quotaProber(t, b, s, true).Run(context.Background(), start.Add(700*time.Millisecond))
		if took := time.Since(start); rep.Outcome != OutcomeBudgetExpired || took > 900*time.Millisecond {
			t.Errorf("custom=%v quota %v: outcome %s after %s, want budget_expired by ~700ms", custom, c.quota, rep.Outcome, took)
		}
		if rep.Succeeded != 1 || rep.Failed != 0 || b.tooMany.Load() != 0 || b.ok.Load() != 1 {
			t.Errorf("custom=%v quota %v: %d ok / %d failed / broker %d ok, %d × 429; want exactly the one slot the quota allows, nothing counted for unsent probes",
				custom, c.quota, rep.Succeeded, rep.Failed, b.ok.Load(), b.tooMany.Load())
		}
	}
}
