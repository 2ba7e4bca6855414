package coldstart

import (
	"context"
	"errors"
	"fmt"
	"time"

	"golang.org/x/sync/errgroup"
)

// DefaultTimeout is when the client gives up: a round trip beyond it is a cancellation.
const DefaultTimeout = 2 * time.Second

// Outcome of one query.
type Outcome string

const (
	OutcomeOK        Outcome = "ok"
	OutcomeCancelled Outcome = "cancelled" // no answer within the client timeout
	OutcomeError     Outcome = "error"     // an answer (or a transport failure) that is not a success
)

// Record is one query of a load run. Offsets are from the run's start (the Ready instant).
type Record struct {
	Index int    `json:"i"`
	Query string `json:"q"`
	// Scheduled is when the open-loop schedule wanted it sent; Sent is when it was.
	// Sent-Scheduled is the generator's own lag (the machine is shared: watch it).
	Scheduled time.Duration `json:"scheduled_ns"`
	Sent      time.Duration `json:"sent_ns"`
	// Latency is the client's round trip, capped at the timeout for a cancellation.
	Latency    time.Duration `json:"latency_ns"`
	Outcome    Outcome       `json:"outcome"`
	TimeUsedMs int64         `json:"time_used_ms"` // broker's timeUsedMs; -1 without an answer
	Err        string        `json:"err,omitempty"`
}

// LoadConfig is one open-loop run.
type LoadConfig struct {
	Rate     float64       // arrivals per second, constant from the first instant (a step)
	Duration time.Duration // arrivals are scheduled in [0, Duration)
	Timeout  time.Duration // client timeout; 0 means DefaultTimeout
	// Until, if set, ends the arrivals early when closed (Duration then only bounds the run):
	// a run whose length is an event's, such as a rollout's. Queries in flight still complete.
	Until <-chan struct{}
	// Observe, if set, is given each record as its query completes (from the query's goroutine,
	// so concurrently): a caller that must judge the load while it runs, such as whether the
	// fleet serves it yet.
	Observe func(Record)
}

func (c LoadConfig) check() error {
	switch {
	case c.Rate <= 0:
		return fmt.Errorf("rate %.3g/s: want > 0", c.Rate)
	case c.Duration <= 0:
		return fmt.Errorf("duration %s: want > 0", c.Duration)
	case c.Timeout < 0:
		return fmt.Errorf("timeout %s: want ≥ 0", c.Timeout)
	}
	return nil
}

// Count is how many arrivals the run schedules: i/Rate < Duration.
func (c LoadConfig) Count() int {
	n := int(c.Rate * c.Duration.Seconds())
	if float64(n)/c.Rate < c.Duration.Seconds() {
		n++
	}
	return n
}

// Trace is everything a load run observed.
type Trace struct {
	Start   time.Time     `json:"start"` // wall clock of offset 0
	Rate    float64       `json:"rate_qps"`
	Timeout time.Duration `json:"timeout_ns"`
	Records []Record      `json:"records"`
}

// RunLoad sends mix at cfg.Rate from now on: arrival i goes at start + i/Rate, each in its
// own goroutine with its own timeout, so a slow answer never delays the next arrival (no
// coordinated omission). When the generator itself falls behind (a busy machine), overdue
// arrivals go at once and Sent records how late. The run ends when every query has
// answered or timed out; cancelling ctx stops new arrivals, cancels those in flight (they
// are recorded as cancelled) and returns ctx's error with what was recorded so far.
func RunLoad(ctx context.Context, cfg LoadConfig, mix Mix, send SendFunc) (*Trace, error) {
	if err := cfg.check(); err != nil {
		return nil, fmt.Errorf("load: %w", err)
	}
	if len(mix) == 0 {
		return nil, errors.New("load: empty query mix")
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = DefaultTimeout
	}
	n := cfg.Count()
	recs := make([]Record, n)
	g, gctx := errgroup.WithContext(ctx)
	start := time.Now()
	timer := time.NewTimer(0)
	<-timer.C
	defer timer.Stop()
	scheduled := 0
arrivals:
	for i := range n {
		due := time.Duration(float64(i) / cfg.Rate * float64(time.Second))
		if wait := due - time.Since(start); wait > 0 {
			timer.Reset(wait)
			select {
			case <-gctx.Done():
				break arrivals
			case <-cfg.Until:
				break arrivals
			case <-timer.C:
			}
		} else if gctx.Err() != nil || isClosed(cfg.Until) {
			break arrivals
		}
		scheduled++
		q := mix.At(i)
		g.Go(func() error {
			recs[i] = one(gctx, start, i, due, q, cfg.Timeout, send)
			if cfg.Observe != nil {
				cfg.Observe(recs[i])
			}
			return nil
		})
	}
	_ = g.Wait() // the query goroutines never fail: their errors are records
	tr := &Trace{Start: start, Rate: cfg.Rate, Timeout: cfg.Timeout, Records: recs[:scheduled]}
	if err := ctx.Err(); err != nil {
		return tr, fmt.Errorf("load stopped after %d of %d arrivals: %w", scheduled, n, err)
	}
	return tr, nil
}

// isClosed reports whether c is closed (false for nil).
func isClosed(c <-chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

// one sends query i and times it.
func one(ctx context.Context, start time.Time, i int, due time.Duration, q Query, timeout time.Duration, send SendFunc) Record {
	qctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	sent := time.Now()
	a := send(qctx, q)
	lat := time.Since(sent)
	r := Record{Index: i, Query: q.Name, Scheduled: due, Sent: sent.Sub(start), Latency: lat, TimeUsedMs: a.TimeUsedMs, Err: a.Err}
	switch {
	case lat >= timeout || qctx.Err() != nil:
		// A round trip beyond the timeout is a cancellation even if an answer squeezed in.
		r.Outcome, r.Latency, r.Err = OutcomeCancelled, min(lat, timeout), ""
	case a.OK:
		r.Outcome = OutcomeOK
	default:
		r.Outcome = OutcomeError
	}
	return r
}
