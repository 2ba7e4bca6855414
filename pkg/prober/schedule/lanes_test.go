package schedule

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/pkg/prober/plan"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/sqltext"
)

func TestLanesSplitWorkersByEngineShare(t *testing.T) {
	sse := []string{"SELECT 1 FROM a", "SELECT 2 FROM a", "SELECT 3 FROM a"}
	mse := []string{sqltext.WithMultiStage("SELECT 4 FROM a")}
	all := append(slices.Clone(sse), mse...)
	isMSE := plan.MultiStageQueries(all)
	for _, c := range []struct {
		name    string
		queries []string
		workers int
		lanes   int
		mseW    int
	}{
		{"both engines, 4 workers: 3 + 1", all, 4, 2, 1},
		{"both engines, 8 workers: 6 + 2", all, 8, 2, 2},
		{"both engines, 2 workers: one each", all, 2, 2, 1},
		{"one worker shares one lane", all, 1, 1, 0},
		{"single-stage only", sse, 4, 1, 0},
		{"multi-stage only", mse, 4, 1, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			ls, assign := newLanes(c.queries, isMSE, c.workers)
			if len(ls.lanes) != c.lanes || len(assign) != c.workers {
				t.Fatalf("%d lanes, %d workers; want %d, %d", len(ls.lanes), len(assign), c.lanes, c.workers)
			}
			n := 0
			for _, l := range assign {
				n += l
			}
			if n != c.mseW {
				t.Fatalf("%d workers on the multi-stage lane, want %d (assign %v)", n, c.mseW, assign)
			}
			if got := ls.live(); len(got) != len(c.queries) {
				t.Fatalf("live %v, want every query once", got)
			}
		})
	}
}

// Fast failures in a row pause a lane; slow ones (a cold engine timing out)
// do not: a probe that took longer than the longest wait cannot hammer, and
// holding a slow engine to one probe at a time would only slow its warmup.
func TestPauseCountsOnlyFastFailures(t *testing.T) {
	now := time.Now()
	p := newPause(2)
	for range 5 {
		p.failed(now, false, false, 5*time.Second)
	}
	if p.holding(now) {
		t.Fatal("five probes timing out after 5 s paused the lane")
	}
	p.failed(now, false, false, 3*time.Millisecond)
	if p.holding(now) {
		t.Fatal("one fast failure paused the lane (need is 2)")
	}
	p.failed(now, false, false, 3*time.Millisecond)
	if !p.holding(now) {
		t.Fatal("two fast failures in a row did not pause the lane")
	}
	// Inside the pause the tester's failure lengthens it, slow or not.
	later := now.Add(time.Second)
	if tester, ok := p.wait(context.Background(), func() time.Time { return later }); !ok || !tester {
		t.Fatalf("after the wait a worker is the tester: got tester=%v ok=%v", tester, ok)
	}
	p.failed(later, true, false, 5*time.Second)
	if !p.holding(later) {
		t.Fatal("the tester's slow failure ended the pause")
	}
	// A quota refusal pauses at once, however long it took.
	q := newPause(4)
	q.failed(now, false, true, 2*time.Second)
	if !q.holding(now) {
		t.Fatal("a 429 did not pause the lane")
	}
}
