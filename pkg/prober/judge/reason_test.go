package judge

import (
	"slices"
	"strconv"
	"testing"
	"time"
)

// probe is one floor probe's answer as the judge hears it.
type probe struct {
	sql string
	lat time.Duration
	ok  bool
}

// roundRobin interleaves the feeds probe by probe, as rounds over several
// shapes do; each shape is fed as its own one query.
func roundRobin(feeds ...shapeFeed) []probe {
	var out []probe
	for i := 0; ; i++ {
		fed := false
		for _, f := range feeds {
			if i < len(f.lats) {
				out = append(out, probe{f.shape, f.lats[i], true})
				fed = true
			}
		}
		if !fed {
			return out
		}
	}
}

// times is n successful probes of sql.
func times(n int, sql string) []probe {
	out := make([]probe, n)
	for i := range out {
		out[i] = probe{sql, ms, true}
	}
	return out
}

// names is prefix1..prefixN.
func names(prefix string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = prefix + strconv.Itoa(i+1)
	}
	return out
}

// compiling is cumulative compile times (ms), one reading every 500 ms: 2 s
// of compilation per second for 4 s, the span a rate needs.
var compiling = []int{0, 1000, 2000, 3000, 4000, 5000, 6000, 7000, 8000}

// settled is compiling, then a compiler that stopped: the rate over the span
// falls to 0 and stays there for three readings and more.
var settled = append(append([]int(nil), compiling...), 8000, 8000, 8000, 8000, 8000, 8000, 8000, 8000, 8000, 8000, 8000, 8000)

// The verdict as a table: events in (the plan: its shapes and engines; probes;
// JIT readings), a verdict out, and the reason a run gives when it ends warm
// or at its budget.
func TestVerdict(t *testing.T) {
	cases := []struct {
		name   string
		rules  Rules
		shapes []string // planned, each its own one query
		pool   []string // of shapes, the multi-stage ones: judged together
		// mse of live planned queries q0.. are multi-stage (the floor's split).
		mse, live int
		probes    []probe
		jit       []int // cumulative compile ms, a reading every 500 ms; nil: no source
		want      Verdict
	}{
		{name: "floor reached", rules: Rules{Floor: 300}, probes: times(300, "q"),
			want: Verdict{true, "floor of 300 successful probes reached"}},
		{name: "floor short", rules: Rules{Floor: 300}, probes: times(12, "q"),
			want: Verdict{false, "budget ran out with 12 of 300 successful probes"}},
		// The run's cap on queries a second could not give the floor within the budget.
		{name: "floor beyond the cap's reach", rules: Rules{Floor: 300, MaxRate: 5, Budget: 15 * time.Second}, probes: times(70, "q"),
			want: Verdict{false, "budget ran out with 70 of 300 successful probes (the floor of 300 probes needs 60 s at 5 probes/s, more than the 15 s budget)"}},
		{name: "floor beyond a fractional cap's reach", rules: Rules{Floor: 100, MaxRate: 0.7, Budget: 14990 * ms}, probes: times(9, "q"),
			want: Verdict{false, "budget ran out with 9 of 100 successful probes (the floor of 100 probes needs 142.9 s at 0.7 probes/s, more than the 15 s budget)"}},
		{name: "floor within the cap's reach", rules: Rules{Floor: 300, MaxRate: 25, Budget: 15 * time.Second}, probes: times(70, "q"),
			want: Verdict{false, "budget ran out with 70 of 300 successful probes"}},
		{name: "failures do not count", rules: Rules{Floor: 2},
			probes: []probe{{"q", ms, true}, {"q", ms, false}, {"q", ms, false}},
			want:   Verdict{false, "budget ran out with 1 of 2 successful probes"}},
		{name: "floor 0 is warm at once", want: Verdict{true, "floor of 0 successful probes reached"}},
		// A run past the floor's total can still be short on one engine's share:
		// the reason says which, so an operator does not read "budget ran out"
		// as latency alone. Four passes (400) are more than half the floor: the
		// share stands at 150.
		{name: "an engine short of its share", rules: Rules{Floor: 300}, mse: 100, live: 200,
			probes: append(times(33, "q0"), times(475, "q150")...),
			want:   Verdict{false, "budget ran out with 33 of 150 multi-stage successful probes"}},
		{name: "both engines at their share", rules: Rules{Floor: 300}, mse: 100, live: 200,
			probes: append(times(150, "q0"), times(358, "q150")...),
			want:   Verdict{true, "floor of 300 successful probes reached"}},
		{name: "at most five unsettled shapes named", rules: Rules{Exit: ExitConverged}, shapes: names("s", 8),
			probes: roundRobin(shapeFeed{"s1", flat(40, 3*ms)}, shapeFeed{"s2", flat(20, 3*ms)}, shapeFeed{"s3", flat(4, 3*ms)}),
			want: Verdict{false, "budget ran out with latency not yet flat on s2 (1 of 3 flat windows), s3 (4 probes, no full window), " +
				"s4 (0 probes, no full window), s5 (0 probes, no full window), s6 (0 probes, no full window), 2 more"}},
		{name: "the converged shapes named", rules: Rules{Exit: ExitConverged, Floor: 5}, shapes: names("s", 7),
			probes: roundRobin(shapeFeed{"s1", flat(40, 3*ms)}, shapeFeed{"s2", flat(40, 3*ms)}, shapeFeed{"s3", flat(40, 3*ms)},
				shapeFeed{"s4", flat(40, 3*ms)}, shapeFeed{"s5", flat(40, 3*ms)}, shapeFeed{"s6", flat(40, 3*ms)}, shapeFeed{"s7", flat(40, 3*ms)}),
			want: Verdict{true, "floor of 5 successful probes reached; latency flat on s1, s2, s3, s4, s5, 2 more"}},
		// The multi-stage shapes are judged together: the reason names them
		// once, as their engine, not each with the pool's count.
		{name: "the pooled shapes named once", rules: Rules{Exit: ExitConverged},
			shapes: []string{"agg", "mse_agg", "mse_join", "mse_window"}, pool: []string{"mse_agg", "mse_join", "mse_window"},
			probes: roundRobin(shapeFeed{"agg", flat(40, 3*ms)},
				shapeFeed{"mse_agg", flat(8, 30*ms)}, shapeFeed{"mse_join", flat(8, 90*ms)}, shapeFeed{"mse_window", flat(8, 60*ms)}),
			want: Verdict{false, "budget ran out with latency not yet flat on the multi-stage shapes together (1 of 3 flat windows)"}},
		{name: "latency flat, JIT still compiling", rules: Rules{Exit: ExitConverged, Floor: 1}, shapes: []string{"agg"},
			probes: roundRobin(shapeFeed{"agg", flat(40, 3*ms)}), jit: compiling,
			want: Verdict{false, "budget ran out with JIT still compiling (2.000 s/s, 100% of its 2.000 s/s peak)"}},
		{name: "latency flat, JIT quiet", rules: Rules{Exit: ExitConverged, Floor: 1}, shapes: []string{"agg"},
			probes: roundRobin(shapeFeed{"agg", flat(40, 3*ms)}), jit: settled,
			want: Verdict{true, "floor of 1 successful probes reached; latency flat on agg; JIT compile rate 0.000 s/s, 0% of its 2.000 s/s peak"}},
		{name: "the floor exit ignores the JIT", rules: Rules{Floor: 1}, probes: times(1, "q"), jit: compiling,
			want: Verdict{true, "floor of 1 successful probes reached"}},
		{name: "the JIT alone is not warm", rules: Rules{Exit: ExitConverged, Floor: 1}, shapes: []string{"agg"},
			probes: roundRobin(shapeFeed{"agg", flat(12, 3*ms)}), jit: settled,
			want: Verdict{false, "budget ran out with latency not yet flat on agg (0 of 3 flat windows)"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			j := New(c.rules)
			if c.jit != nil {
				j.WatchJIT()
			}
			live, mse := queries(c.mse, c.live)
			for _, s := range c.pool {
				mse[s] = true
			}
			names := append(slices.Clone(c.shapes), live...)
			for _, p := range c.probes { // a query probed is a query planned
				if !slices.Contains(names, p.sql) {
					names = append(names, p.sql)
				}
			}
			plan, sqls := planned(names, mse)
			j.Observe(plan, t0)
			for i, p := range c.probes {
				j.Observe(probed(sqls[p.sql], p.lat, p.ok), t0.Add(time.Duration(i)*time.Millisecond))
			}
			for i, v := range c.jit {
				j.Observe(jitRead(v), t0.Add(time.Duration(i)*500*time.Millisecond))
			}
			if got := j.Verdict(); got != c.want {
				t.Errorf("verdict\n got %+v\nwant %+v", got, c.want)
			}
		})
	}
}
