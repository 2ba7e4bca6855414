package schedule

import (
	"testing"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/pkg/pinot"
)

// Refusals that come back before any success carry no rate: nothing is learned
// from them; the first refusal after a success is.
func TestLearnWaitsForASuccessBeforeLearning(t *testing.T) {
	now := time.Unix(1000, 0)
	p := newPacer(func() time.Time { return now }, map[string][]string{"q": {"t_OFFLINE"}})
	refused := pinot.Result{Class: pinot.Transient, ErrorCode: 429}
	if _, _, _, changed := p.observe("q", refused); changed {
		t.Fatal("learned a pace from a refusal with no success seen")
	}
	now = now.Add(50 * time.Millisecond)
	p.observe("q", pinot.Result{Class: pinot.Success})
	now = now.Add(50 * time.Millisecond)
	table, admitted, rate, changed := p.observe("q", refused)
	// 1 success over the 100 ms observed = 10/s admitted; paced at 80%.
	if !changed || table != "t_OFFLINE" || admitted != 10 || rate != 8 {
		t.Fatalf("got %s %v %v %v, want t_OFFLINE 10 8 true", table, admitted, rate, changed)
	}
}

func TestOKCounterForgetsAfterTheWindow(t *testing.T) {
	var c okCounter
	t0 := time.Unix(2000, 0)
	for i := range 50 {
		c.add(t0.Add(time.Duration(i) * 10 * time.Millisecond)) // 50 over 0.5 s
	}
	if n := c.count(t0.Add(500 * time.Millisecond)); n != 50 {
		t.Fatalf("count within the window = %d, want 50", n)
	}
	if n := c.count(t0.Add(1200 * time.Millisecond)); n != 20 {
		t.Fatalf("count 1.2 s later = %d, want 20 (the slots of 0.3–0.5 s)", n)
	}
	if n := c.count(t0.Add(3 * time.Second)); n != 0 {
		t.Fatalf("count long after = %d, want 0", n)
	}
}

// A learned pace raised clean after clean for minutes must still slow down at
// the next refusal: the raises never take it to "no pace at all".
func TestLearnedPaceSlowsAfterLongRaising(t *testing.T) {
	now := time.Unix(1000, 0)
	p := newPacer(func() time.Time { return now }, map[string][]string{"q": {"t_OFFLINE"}})
	refused := pinot.Result{Class: pinot.Transient, ErrorCode: 429}
	now = now.Add(50 * time.Millisecond)
	p.observe("q", pinot.Result{Class: pinot.Success})
	now = now.Add(50 * time.Millisecond)
	if _, _, _, changed := p.observe("q", refused); !changed {
		t.Fatal("no pace learned from the first refusal after a success")
	}
	for range 400 { // 100 s of clean answers, a raise every raiseEvery
		now = now.Add(raiseEvery)
		p.observe("q", pinot.Result{Class: pinot.Success})
	}
	now = now.Add(raiseEvery)
	p.observe("q", refused)
	p.reserve("q")
	if wait, _ := p.reserve("q"); wait <= 0 {
		t.Fatalf("after a refusal two probes still go back to back (wait %s): the learned pace is gone", wait)
	}
}
