package rollout

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/e2e/coldstart"
)

// fakeClock advances by step at every reading, so waitSettled's loop runs on simulated time.
type fakeClock struct {
	t    time.Time
	step time.Duration
	// at runs at each reading with the time read (the load's losses, scripted)
	at func(time.Time)
}

func (c *fakeClock) now() time.Time {
	c.t = c.t.Add(c.step)
	t := c.t
	if c.at != nil {
		c.at(t)
	}
	return t
}

func TestWaitSettled(t *testing.T) {
	t0 := time.Date(2026, 12, 5, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name        string
		lossesUntil time.Duration // a query is lost at every reading before this (from t0)
		warm, most  time.Duration
		wantSettled bool
		wantFrom    time.Duration // waited at least
		wantUntil   time.Duration // waited at most
	}{
		{"quiet from the start: the warm window", 0, 15 * time.Second, 3 * time.Minute, true, 15 * time.Second, 16 * time.Second},
		{"warm shorter than the quiet: the quiet", 0, 2 * time.Second, 3 * time.Minute, true, SteadyQuiet - time.Second, SteadyQuiet + time.Second},
		{"losses for 40 s: 10 s after the last", 40 * time.Second, 15 * time.Second, 3 * time.Minute, true, 49 * time.Second, 51 * time.Second},
		{"losses throughout: the most, unsettled", time.Hour, 15 * time.Second, time.Minute, false, time.Minute, time.Minute + time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var c *lossClock
			clk := &fakeClock{t: t0, step: 100 * time.Millisecond}
			clk.at = func(now time.Time) {
				if c != nil && now.Sub(t0) < tc.lossesUntil {
					c.lost(now) // what Observe(a lost record) does, at this reading's time
				}
			}
			c = newLossClock(clk.now)
			c.Observe(coldstart.Record{Outcome: coldstart.OutcomeOK}) // a success changes nothing
			s, err := waitSettled(t.Context(), c, tc.warm, tc.most, time.Microsecond)
			if err != nil {
				t.Fatal(err)
			}
			if s.Settled != tc.wantSettled || s.Waited < tc.wantFrom || s.Waited > tc.wantUntil {
				t.Errorf("waitSettled = %+v, want settled %v after %s–%s", s, tc.wantSettled, tc.wantFrom, tc.wantUntil)
			}
			if tc.wantSettled && s.Quiet < SteadyQuiet {
				t.Errorf("settled with only %s quiet", s.Quiet)
			}
		})
	}
}

// A cancelled context ends the wait with an error that says what was being waited for.
func TestWaitSettledCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	c := newLossClock(time.Now)
	c.Observe(coldstart.Record{Outcome: coldstart.OutcomeError})
	if _, err := waitSettled(ctx, c, time.Minute, time.Hour, time.Millisecond); err == nil || err.Error() != "waiting for the fleet to serve the load without loss: context canceled" {
		t.Errorf("waitSettled on a cancelled context: %v", err)
	}
}

// Observe marks only lost queries, failed or cancelled.
func TestLossClockObserve(t *testing.T) {
	clk := &fakeClock{t: time.Date(2026, 12, 5, 12, 0, 0, 0, time.UTC), step: time.Second}
	c := newLossClock(clk.now) // reading 1
	for range 5 {
		c.Observe(coldstart.Record{Outcome: coldstart.OutcomeOK})
	}
	if q := c.quietFor(); q != time.Second { // reading 2
		t.Fatalf("quiet %s after successes only, want 1s", q)
	}
	c.Observe(coldstart.Record{Outcome: coldstart.OutcomeError}) // reading 3
	if q := c.quietFor(); q != time.Second {                     // reading 4
		t.Errorf("quiet %s just after an error, want 1s", q)
	}
	c.Observe(coldstart.Record{Outcome: coldstart.OutcomeCancelled}) // reading 5
	if q := c.quietFor(); q != time.Second {
		t.Errorf("quiet %s just after a cancellation, want 1s", q)
	}
}

// An event begun unsettled is marked in both tables and listed with why; the method says when
// the steady window began only for a study that let the fleet settle.
func TestUnsettledEventsAreMarked(t *testing.T) {
	settled := &Result{Arm: ArmOff, Kind: "rollout", N: 1, DurationSeconds: 200, Queries: 100}
	wreck := &Result{Arm: ArmOff, Kind: "rollout", N: 2, DurationSeconds: 210, Queries: 100, Cancelled: 90,
		Unsettled: "the fleet still lost queries 180 s into the load (the last 0.4 s before the steady window began)"}
	s := &Study{Brokers: 2, PinotVersion: "1.5.1", WarmS: 15, SteadyWaitS: 180, SteadyQuietS: 10,
		Arms: map[string]*Arm{ArmOff: {Rollouts: []*Result{settled, wreck}}}}
	if table := Table(s); !strings.Contains(table, "| off | 2 (1 begun unsettled) |") {
		t.Errorf("Table does not count the unsettled event:\n%s", table)
	}
	md := Markdown(s, "x")
	for _, want := range []string{
		"| off | rollout 2 † | 0 (",
		"| off | rollout 1 | 0 (",
		"Events begun unsettled (†: the fleet still lost queries after 180 s of load",
		"- off rollout 2: the fleet still lost queries 180 s into the load (the last 0.4 s before the steady window began).",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("Markdown lacks %q:\n%s", want, md)
		}
	}
	if got, want := steadyClause(s), ", begun once the fleet had served the load for 10 s without a lost query (after at least 15 s of load, at most 180 s: an event begun without that is marked †)"; got != want {
		t.Errorf("steadyClause = %q, want %q", got, want)
	}
	wreck.Unsettled = ""
	s.SteadyWaitS = 0 // a study made before the fleet had to settle
	if md := Markdown(s, "x"); strings.Contains(md, "unsettled") || strings.Contains(md, "†") || steadyClause(s) != "" {
		t.Errorf("a study with no unsettled event, made before the rule, mentions it:\n%s", md)
	}
}

// A loss reported late (its goroutine read the clock before another's) does not move the latest
// loss back; a settled wait has no reason, an unsettled one says how long and how quiet.
func TestLossClockKeepsTheLatestAndSaysWhy(t *testing.T) {
	t0 := time.Date(2026, 12, 5, 12, 0, 0, 0, time.UTC)
	clk := &fakeClock{t: t0, step: time.Second}
	c := newLossClock(clk.now) // t0+1
	c.lost(t0.Add(10 * time.Second))
	c.lost(t0.Add(5 * time.Second))
	clk.t = t0.Add(11 * time.Second)
	if q := c.quietFor(); q != 2*time.Second { // read at t0+12
		t.Errorf("quiet %s, want 2s since the loss at t0+10s", q)
	}
	if why := (settlement{Waited: time.Minute, Quiet: 10 * time.Second, Settled: true}).unsettled(); why != "" {
		t.Errorf("a settled wait says %q", why)
	}
	want := "the fleet still lost queries 180 s into the load (the last 0.4 s before the steady window began)"
	if why := (settlement{Waited: 3 * time.Minute, Quiet: 400 * time.Millisecond}).unsettled(); why != want {
		t.Errorf("unsettled() = %q, want %q", why, want)
	}
}
