package coldstart

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"
)

// CapacityStep is one closed-loop measurement: Concurrency clients, each sending its next
// query as soon as the last one answered, for Duration.
type CapacityStep struct {
	Concurrency int     `json:"concurrency"`
	Seconds     float64 `json:"seconds"`
	Queries     int     `json:"queries"`
	Errors      int     `json:"errors"`
	QPS         float64 `json:"qps"` // successful answers per second
	P50Ms       float64 `json:"p50_ms"`
	P99Ms       float64 `json:"p99_ms"`
}

// ClosedLoop runs one CapacityStep. A closed loop cannot overload the broker (it only ever
// has Concurrency queries in flight), which is what makes it the right tool to find the
// warm broker's throughput ceiling; the study itself is open loop.
func ClosedLoop(ctx context.Context, concurrency int, d, timeout time.Duration, mix Mix, send SendFunc) CapacityStep {
	if timeout == 0 {
		timeout = DefaultTimeout
	}
	var (
		next    atomic.Int64
		mu      sync.Mutex
		lat     []float64
		errs    int
		begin   = time.Now()
		end     = begin.Add(d)
		g, ctx2 = errgroup.WithContext(ctx)
	)
	for range concurrency {
		g.Go(func() error {
			var mine []float64
			var myErrs int
			for time.Now().Before(end) && ctx2.Err() == nil {
				q := mix.At(int(next.Add(1) - 1))
				qctx, cancel := context.WithTimeout(ctx2, timeout)
				t := time.Now()
				a := send(qctx, q)
				cancel()
				if a.OK {
					mine = append(mine, ms(time.Since(t)))
				} else {
					myErrs++
				}
			}
			mu.Lock()
			lat = append(lat, mine...)
			errs += myErrs
			mu.Unlock()
			return nil
		})
	}
	_ = g.Wait()
	took := time.Since(begin).Seconds()
	slices.Sort(lat)
	return CapacityStep{Concurrency: concurrency, Seconds: took, Queries: len(lat) + errs, Errors: errs,
		QPS: float64(len(lat)) / took, P50Ms: Percentile(lat, 50), P99Ms: Percentile(lat, 99)}
}

// Capacity is the best throughput over steps whose error rate stayed under 1%.
func Capacity(steps []CapacityStep) CapacityStep {
	var best CapacityStep
	for _, s := range steps {
		if s.Queries > 0 && float64(s.Errors)/float64(s.Queries) < 0.01 && s.QPS > best.QPS {
			best = s
		}
	}
	return best
}

// RateFor is frac of a capacity, rounded down to a multiple of 5 QPS (at least 5).
func RateFor(capacityQPS, frac float64) float64 {
	return max(5, math.Floor(capacityQPS*frac/5)*5)
}

// Calibration is how a study's arrival rate was chosen.
type Calibration struct {
	Steps    []CapacityStep `json:"closed_loop_steps"`
	Capacity CapacityStep   `json:"capacity"`
	// OpenLoop are the warm open-loop steps tried, in order; the rate is the last that passed.
	OpenLoop []OpenLoopStep `json:"open_loop_steps"`
	Fraction float64        `json:"fraction"`
	Rate     float64        `json:"rate_qps"`
	// Check is the chosen rate's warm open-loop step.
	Check WindowStats `json:"warm_open_loop_check"`
	// WarmP99LimitMs is what a warm broker's open-loop p99 had to stay under.
	WarmP99LimitMs float64 `json:"warm_p99_limit_ms"`
	// Fallback: no try passed, so the rate is the lowest one tried (the machine was busy).
	Fallback bool `json:"fallback,omitempty"`
}

// OpenLoopStep is one warm open-loop try of a rate.
type OpenLoopStep struct {
	Fraction float64     `json:"fraction"`
	Rate     float64     `json:"rate_qps"`
	Stats    WindowStats `json:"stats"`
	Passed   bool        `json:"passed"`
}

// DefaultFractions are the shares of the closed-loop capacity Calibrate tries, lowest first.
// Capped at 70 %: at 80–90 % a warm broker still passed the calibration's 12 s step, but in the
// study a cold restart's backlog never drained, warm windows included (the dashboard mix at 90 %
// on 2026-12-01, the builtin and multi-stage mixes at 90 % on 2026-12-02), leaving nothing to compare.
var DefaultFractions = []float64{0.5, 0.6, 0.7}

// DefaultWarmP99LimitMs keeps a warm broker's queueing small against the 2 s timeout.
const DefaultWarmP99LimitMs = 250

// CalibrateConfig drives Calibrate.
type CalibrateConfig struct {
	Levels []int         // closed-loop client counts, e.g. 1, 2, 4, 8, 16, 32
	Step   time.Duration // length of each closed-loop step; warming takes 3 steps, each open-loop try 2
	// Fractions of the capacity to try open loop, lowest first (nil: DefaultFractions). A single
	// fraction fixes the rate (it is still checked).
	Fractions      []float64
	WarmP99LimitMs float64 // 0: DefaultWarmP99LimitMs
	Timeout        time.Duration
}

// Calibrate chooses a study's arrival rate on a WARM broker: the highest rate a warm broker
// serves comfortably, so that a cold one, whose serve path runs interpreted or half-compiled
// for its first seconds, is the only one that cannot.
//
//  1. Warm the broker: a closed loop of 4 clients for 3 steps, discarded; again while more than
//     a tenth of the answers are errors (a cold broker's first multi-stage queries can time out
//     in planning), up to warmTries times.
//  2. Capacity: a closed loop at each level; the best throughput with < 1% errors.
//  3. Rate: open loop at each fraction of the capacity in turn, 2 steps each; a try passes with
//     no cancellation, < 1% errors and p99 under the limit. The rate is the last passing try
//     before the first failing one (a failing try overloads the broker: no point going higher).
//
// log may be nil.
func Calibrate(ctx context.Context, cfg CalibrateConfig, mix Mix, send SendFunc, log func(msg string, args ...any)) (*Calibration, error) {
	if log == nil {
		log = func(string, ...any) {}
	}
	fractions := cfg.Fractions
	if len(fractions) == 0 {
		fractions = DefaultFractions
	}
	// Lowest first, whatever order they were given in: the search stops at the first
	// share that fails, and the rate is the highest that passed (a list given highest
	// first would otherwise end on its lowest passing share, or fall back to a failed one).
	fractions = slices.Sorted(slices.Values(fractions))
	limit := cfg.WarmP99LimitMs
	if limit == 0 {
		limit = DefaultWarmP99LimitMs
	}
	if err := warmUp(ctx, cfg, mix, send, log); err != nil {
		return nil, err
	}
	c := &Calibration{WarmP99LimitMs: limit}
	for _, n := range cfg.Levels {
		s := ClosedLoop(ctx, n, cfg.Step, cfg.Timeout, mix, send)
		log("calibration: closed loop", "clients", n, "qps", fmt.Sprintf("%.1f", s.QPS), "p50_ms", s.P50Ms, "p99_ms", s.P99Ms, "errors", s.Errors)
		c.Steps = append(c.Steps, s)
		if err := ctx.Err(); err != nil {
			return c, err
		}
	}
	c.Capacity = Capacity(c.Steps)
	if c.Capacity.QPS == 0 {
		return c, fmt.Errorf("calibrate: no closed-loop step kept errors under 1%%")
	}
	d := 2 * cfg.Step
	tried := map[float64]bool{}
	for _, f := range fractions {
		rate := RateFor(c.Capacity.QPS, f)
		if tried[rate] {
			continue
		}
		tried[rate] = true
		tr, err := RunLoad(ctx, LoadConfig{Rate: rate, Duration: d, Timeout: cfg.Timeout}, mix, send)
		if err != nil {
			return c, fmt.Errorf("calibrate: open loop at %.0f QPS: %w", rate, err)
		}
		st := Stats(tr, Window{Start: 0, End: d})
		step := OpenLoopStep{Fraction: f, Rate: rate, Stats: st, Passed: st.Cancelled == 0 && st.ErrorRate < 0.01 && st.P99Ms <= limit}
		c.OpenLoop = append(c.OpenLoop, step)
		log("calibration: open loop", "rate", rate, "fraction", f, "p99_ms", st.P99Ms, "cancelled", st.Cancelled, "passed", step.Passed)
		if !step.Passed {
			break
		}
		c.Fraction, c.Rate, c.Check = f, rate, st
	}
	if c.Rate == 0 {
		// Not even the lowest try passed: a busy machine (or a tight limit). Go on at that rate
		// and say so loudly, rather than throw away the cluster and the study.
		first := c.OpenLoop[0]
		c.Fraction, c.Rate, c.Check, c.Fallback = first.Fraction, first.Rate, first.Stats, true
		log("calibration: even the lowest rate overloaded the warm broker; using it anyway", "rate", first.Rate,
			"p99_ms", first.Stats.P99Ms, "cancelled", first.Stats.Cancelled, "limit_ms", limit)
	}
	log("calibration", "note", c.Note())
	return c, nil
}

// Note is a one-line summary.
func (c *Calibration) Note() string {
	if c.Fallback {
		return fmt.Sprintf("rate %.0f QPS = %.0f%% of the warm broker's closed-loop capacity %.0f QPS (%d clients), the LOWEST share tried: "+
			"even it failed on the warm broker (p99 %.0f ms > %.0f ms, %d cancelled), %s",
			c.Rate, 100*c.Fraction, c.Capacity.QPS, c.Capacity.Concurrency, c.Check.P99Ms, c.WarmP99LimitMs, c.Check.Cancelled, c.fallbackCause())
	}
	return fmt.Sprintf("rate %.0f QPS = %.0f%% of the warm broker's closed-loop capacity %.0f QPS (%d clients), the highest share "+
		"a warm broker served open-loop with no cancellation and p99 ≤ %.0f ms (p99 %.0f ms at that rate)",
		c.Rate, 100*c.Fraction, c.Capacity.QPS, c.Capacity.Concurrency, c.WarmP99LimitMs, c.Check.P99Ms)
}

// fallbackCause says why no share passed. A mix whose p99 with one query in flight is already over
// the limit cannot pass at any rate on this broker (its slowest shapes, not the load, set the p99:
// the multi-stage mix at 300m); otherwise the queueing came from elsewhere, a busy machine.
func (c *Calibration) fallbackCause() string {
	// --calibration-levels keeps the order it is given in: find the one-client step, not the first.
	if i := slices.IndexFunc(c.Steps, func(s CapacityStep) bool { return s.Concurrency == 1 }); i >= 0 && c.Steps[i].P99Ms > c.WarmP99LimitMs {
		return fmt.Sprintf("but with one query in flight the mix's p99 was already %.0f ms: the limit is below what this mix "+
			"costs on this broker, not a sign of load, and the rate is a share of the capacity as asked", c.Steps[i].P99Ms)
	}
	return "so the machine was too busy and the figures are suspect"
}

// Table renders the calibration as Markdown.
func (c *Calibration) Table() string {
	var b strings.Builder
	b.WriteString("| closed-loop clients | QPS | p50 ms | p99 ms | errors |\n|---|---|---|---|---|\n")
	for _, s := range c.Steps {
		fmt.Fprintf(&b, "| %d | %.0f | %.1f | %.1f | %d |\n", s.Concurrency, s.QPS, s.P50Ms, s.P99Ms, s.Errors)
	}
	b.WriteString("\n| open loop (warm) | share of capacity | p50 ms | p99 ms | cancelled | passed |\n|---|---|---|---|---|---|\n")
	for _, s := range c.OpenLoop {
		fmt.Fprintf(&b, "| %.0f QPS | %.0f%% | %.1f | %.1f | %d | %v |\n", s.Rate, 100*s.Fraction, s.Stats.P50Ms, s.Stats.P99Ms, s.Stats.Cancelled, s.Passed)
	}
	return b.String()
}

// warmTries bounds the warm-up: a mix whose errors outlast it is broken, not cold.
const warmTries = 5

// warmUp loads the broker closed loop until it answers with fewer than a tenth errors. The
// study checked every query once before: errors here are a cold broker's, and wear off.
func warmUp(ctx context.Context, cfg CalibrateConfig, mix Mix, send SendFunc, log func(msg string, args ...any)) error {
	for try := 1; ; try++ {
		log("calibration: warming the broker", "try", try)
		warm := ClosedLoop(ctx, 4, 3*cfg.Step, cfg.Timeout, mix, send)
		if warm.Queries > 0 && warm.Errors*10 <= warm.Queries {
			return nil
		}
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("calibrate: warming: %w", err)
		}
		if try == warmTries {
			return fmt.Errorf("calibrate: warming failed: %d errors of %d queries in the last of %d tries", warm.Errors, warm.Queries, try)
		}
		log("calibration: errors while warming, warming again", "errors", warm.Errors, "queries", warm.Queries)
	}
}
