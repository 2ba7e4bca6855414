package schedule

import (
	"context"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"
	"golang.org/x/time/rate"

	"github.com/warmup-sidecar/warmup-sidecar/pkg/backoff"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/prober/event"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/prober/plan"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/selector"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/sqltext"
)

// QuotaSource answers a typed table's per-broker QPS quota (ok false: none).
// *pinot.Client satisfies it.
type QuotaSource interface {
	QueryQuota(ctx context.Context, table string) (qps float64, ok bool, err error)
}

// QuotaShare is the part of a table's per-broker quota the probes may use: the
// broker's limiter (Guava, one second of burst) then never answers 429 to the
// sidecar, and real traffic arriving beside the warmup keeps some headroom.
const QuotaShare = 0.8

// quotaLookupTimeout bounds the quota questions asked once per run.
const quotaLookupTimeout = time.Second

// pacer spaces probes so no table receives more than QuotaShare of its per-broker
// quota, and the run no more than its cap (cap.go). A probe draws one token from
// the limiter of every table it names, and one from the cap; a table without a
// known quota has no limiter and is never held back. Limiters hold a burst of
// one, as the probes' spacing, not their average, is what a freshly restarted
// broker's limiter (no stored permits) judges, and what its neighbours feel.
type pacer struct {
	now func() time.Time

	mu      sync.Mutex
	all     *rate.Limiter            // the run's cap: every query draws on it (nil: none)
	limits  map[string]*rate.Limiter // typed table → its pace
	tables  map[string][]string      // sql → typed tables it names
	ok      map[string]*okCounter    // typed table → recent successes
	learned map[string]time.Time     // typed table → when its learned pace last changed
	start   time.Time
}

func newPacer(now func() time.Time, tables map[string][]string) *pacer {
	return &pacer{now: now, limits: map[string]*rate.Limiter{}, tables: tables,
		ok: map[string]*okCounter{}, learned: map[string]time.Time{}, start: now()}
}

// pacing looks up the quota of every table the plan probes and gives the run's
// pacer the plan's tables. Tables without a known quota (no quota source, a
// broker before 1.3, a failed lookup) start unpaced; their first 429 teaches the
// pacer (pace_learn.go).
func (r *Schedule) pacing(ctx context.Context, pl plan.Plan) {
	// sql → typed tables it names: a default probe names its leg, a custom query
	// whatever follows its FROM and JOINs.
	tablesOf := map[string][]string{}
	for _, q := range pl.Queries {
		tablesOf[q] = TypedCandidates(sqltext.Tables(q))
	}
	var names []string
	seen := map[string]bool{}
	for _, ts := range tablesOf {
		for _, t := range ts {
			if !seen[t] {
				seen[t] = true
				names = append(names, t)
			}
		}
	}
	quotas := map[string]float64{}
	if r.Quotas != nil {
		quotas = r.lookupQuotas(ctx, names)
	}
	r.paced().plan(tablesOf, quotas)
	for t, qps := range quotas {
		r.Observer.Observe(event.Event{Kind: event.KindPaced, Table: t, Quota: qps, Rate: qps * QuotaShare})
	}
}

// plan gives the pacer the plan's tables (sql → the typed tables it names) and
// paces those with a known quota (typed table → QPS). What it learns of the
// others counts from now.
func (p *pacer) plan(tables map[string][]string, quotas map[string]float64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.tables, p.start = tables, p.now()
	for t, qps := range quotas {
		p.limits[t] = rate.NewLimiter(rate.Limit(qps*QuotaShare), 1)
	}
}

// quotaLookups caps concurrent quota calls: a cluster can have hundreds of
// tables and the controller is asked while the broker is just starting.
const quotaLookups = 8

func (r *Schedule) lookupQuotas(ctx context.Context, names []string) map[string]float64 {
	lctx, cancel := context.WithTimeout(ctx, quotaLookupTimeout)
	defer cancel()
	var mu sync.Mutex
	out := map[string]float64{}
	g := errgroup.Group{}
	g.SetLimit(quotaLookups)
	for _, t := range names {
		g.Go(func() error {
			qps, ok, err := r.Quotas.QueryQuota(lctx, t)
			if err == nil && ok {
				mu.Lock()
				out[t] = qps
				mu.Unlock()
			}
			return nil
		})
	}
	_ = g.Wait()
	return out
}

// pick takes up to n queries from the rotation whose tables have a slot free now,
// skipping (for this turn) those held back by their quota, so a throttled table
// does not slow the others. It pulls at most n+span items (span: the rotation's
// length), and when nothing is free it returns how long until something is.
// The run's cap holds every query alike: it stops the pick without pulling, so
// the rotation's order survives the cap.
func (p *pacer) pick(rot *selector.Rotation, n, span int) ([]string, time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now()
	used := map[*rate.Limiter]int{}
	var out []string
	wait := time.Duration(-1)
	for pulls := 0; len(out) < n && pulls < n+span; pulls++ {
		if p.all != nil {
			if hold := untilTokens(p.all, now, used[p.all]+1); hold > 0 {
				wait = hold // nothing goes before the cap's next token
				break
			}
		}
		q := rot.Batch(1)[0]
		var hold time.Duration
		for _, t := range p.tables[q] {
			if l := p.limits[t]; l != nil {
				hold = max(hold, untilTokens(l, now, used[l]+1))
			}
		}
		if hold > 0 {
			if wait < 0 || hold < wait {
				wait = hold
			}
			continue
		}
		for _, t := range p.tables[q] {
			if l := p.limits[t]; l != nil {
				used[l]++
			}
		}
		if p.all != nil {
			used[p.all]++
		}
		out = append(out, q)
	}
	return out, max(wait, 0)
}

// untilTokens is how long from now until l has given n more tokens than it holds.
func untilTokens(l *rate.Limiter, now time.Time, n int) time.Duration {
	missing := float64(n) - l.TokensAt(now)
	if missing <= 0 {
		return 0
	}
	// A tiny quota puts the slot beyond what a Duration holds: never, in practice.
	ns := missing / float64(l.Limit()) * float64(time.Second)
	if ns >= float64(rate.InfDuration) {
		return rate.InfDuration
	}
	return time.Duration(ns)
}

// reserve takes the next slot of every limiter sql draws on (its tables' and the
// cap) and says how long to wait for it (0: go now); the slots can be given back
// for a probe not sent.
func (p *pacer) reserve(sql string) (time.Duration, slots) {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now()
	var wait time.Duration
	var taken slots
	for _, t := range p.tables[sql] {
		if l := p.limits[t]; l != nil {
			wait = max(wait, taken.draw(l, now))
		}
	}
	if p.all != nil {
		wait = max(wait, taken.draw(p.all, now))
	}
	return wait, taken
}

// draw takes l's next slot into s and says how long until it is due.
func (s *slots) draw(l *rate.Limiter, now time.Time) time.Duration {
	r := l.ReserveN(now, 1)
	if !r.OK() {
		return rate.InfDuration
	}
	*s = append(*s, r)
	return r.DelayFrom(now)
}

// slots are the reservations one probe holds.
type slots []*rate.Reservation

// giveBack returns the slots of a probe that is not sent.
func (s slots) giveBack(now time.Time) {
	for _, r := range s {
		r.CancelAt(now)
	}
}

// admit holds a query until its tables' quota and the run's cap have room. False
// when the wait would outlast ctx or the deadline: the query is then not sent (and
// not counted), and its slots are given back.
func (r *Schedule) admit(ctx context.Context, sql string) bool {
	wait, taken := r.paced().reserve(sql)
	if wait <= 0 {
		return true
	}
	if wait > r.Deadline.Sub(r.Now()) || !backoff.Sleep(ctx, wait) {
		taken.giveBack(r.Now())
		return false
	}
	return true
}

// TypedCandidates maps table names to the typed names whose quota applies: a typed
// name to itself, a raw name to both legs (the broker checks both for it).
func TypedCandidates(tables []string) []string {
	var out []string
	for _, t := range tables {
		if strings.HasSuffix(t, "_OFFLINE") || strings.HasSuffix(t, "_REALTIME") {
			out = append(out, t)
			continue
		}
		out = append(out, t+"_OFFLINE", t+"_REALTIME")
	}
	return out
}
