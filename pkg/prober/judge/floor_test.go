package judge

import (
	"strconv"
	"testing"
)

// The multi-stage engine's share of the floor is capped at four passes over its
// queries when single-stage queries share the plan (the rest falls to the
// single-stage engine); a plan of multi-stage queries alone keeps the whole floor.
func TestMultiStageFloorShareCappedAtFourPasses(t *testing.T) {
	cases := []struct {
		name         string
		floor        int
		mse, live    int // multi-stage queries, all live queries
		wantMSE, sse int64
	}{
		{"the study's table: 13 of 23 queries", 300, 13, 23, 52, 248},
		{"many multi-stage queries: the share is lower", 300, 60, 130, 139, 161},
		{"multi-stage only", 300, 5, 5, 300, 0},
		{"single-stage only", 300, 0, 9, 0, 300},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			j := New(Rules{Floor: c.floor})
			e, _ := planned(queries(c.mse, c.live))
			j.Observe(e, t0)
			got := j.Floors()
			if gotMSE, gotSSE := got.MultiStage, got.SingleStage; gotMSE != c.wantMSE || gotSSE != c.sse {
				t.Errorf("floors (multi-stage, single-stage) = (%d, %d), want (%d, %d)", gotMSE, gotSSE, c.wantMSE, c.sse)
			}
		})
	}
}

// queries names n queries q0..q(n-1), the first mse of them multi-stage.
func queries(mse, n int) (names []string, multiStage map[string]bool) {
	multiStage = map[string]bool{}
	for i := range n {
		q := "q" + strconv.Itoa(i)
		if i < mse {
			multiStage[q] = true
		}
		names = append(names, q)
	}
	return names, multiStage
}
