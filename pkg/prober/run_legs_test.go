package prober

import (
	"math"
	"strings"
	"testing"
	"time"
)

// One shape over the plan's table legs, the REALTIME one still getting much
// faster with every probe: the median of a window mixing the legs is the flat
// legs' and hides it. Each leg's query is judged against itself, so the run ends
// warm only once the falling leg has flattened too.
func TestConvergenceJudgesEachTableLegOfAShape(t *testing.T) {
	p, b, clk, _ := convergedRun(t, Settings{MinIterations: 40, Shapes: ShapesLimit1, MultiStage: EngineOff})
	falling := func(sql string) bool { return strings.Contains(sql, "REALTIME") }
	probes := map[string]int{}
	simulate(b, clk, func(sql string, n int) time.Duration {
		probes[sql]++
		if falling(sql) {
			// 5 ms + 300 ms·0.8ⁿ: each window of the leg's probes is well under
			// the one before until n ≈ 20, where the fall drops under the band.
			return 5*ms + time.Duration(float64(300*ms)*math.Pow(0.8, float64(n)))
		}
		return 4 * ms
	})
	rep := runFor(p, clk, 15*time.Second)
	if rep.Outcome != OutcomeWarm {
		t.Fatalf("outcome %s (%s), want warm once every leg is flat", rep.Outcome, rep.Reason)
	}
	legs := 0
	for sql, n := range probes {
		if !falling(sql) {
			continue
		}
		legs++
		// About 20 probes before it flattens, then a reference window and
		// three flat ones of at least 3 probes each.
		if n < 30 {
			t.Errorf("warm after %d probes of the falling leg %s: a window mixing the tables hid it (probes %v)", n, sql, probes)
		}
	}
	if legs == 0 {
		t.Fatalf("no REALTIME leg was probed: %v", probes)
	}
}
