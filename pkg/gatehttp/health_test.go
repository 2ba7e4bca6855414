package gatehttp

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// fakeClock is a clock the test moves by hand.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func newFakeClock() *fakeClock { return &fakeClock{now: time.Unix(1_800_000_000, 0)} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// honest answers 200 unless its context has ended, as the real client does.
func honest(ctx context.Context) (bool, string, error) {
	if err := ctx.Err(); err != nil {
		return false, "", fmt.Errorf("checking broker health: %w", err)
	}
	return true, "", nil
}

// heldCheck is a broker /health call that answers only once released (or when
// its context ends); started is closed when the first call arrives.
type heldCheck struct {
	started, release chan struct{}
	calls            atomic.Int64
}

func newHeldCheck() *heldCheck {
	return &heldCheck{started: make(chan struct{}), release: make(chan struct{})}
}

func (c *heldCheck) check(ctx context.Context) (bool, string, error) {
	if c.calls.Add(1) == 1 {
		close(c.started)
	}
	select {
	case <-c.release:
	case <-ctx.Done():
	}
	return honest(ctx)
}

// One /readyz request cancelled by its client must not decide the next one's
// answer: the broker is healthy throughout.
func TestBrokerHealthCancelledCallerDoesNotPoisonTheCache(t *testing.T) {
	h := &BrokerHealth{Check: honest, MaxAge: time.Second, Timeout: time.Second, Now: newFakeClock().Now}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	h.Get(ctx)
	if ok, why := h.Get(context.Background()); !ok {
		t.Fatalf("after one cancelled request: ready=%v %q; the broker answers 200", ok, why)
	}
}

// A check that ran out of time is not an answer to keep: the next caller asks again.
func TestBrokerHealthNeverCachesAContextError(t *testing.T) {
	var slow atomic.Bool
	slow.Store(true)
	check := func(ctx context.Context) (bool, string, error) {
		if slow.Load() {
			<-ctx.Done()
		}
		return honest(ctx)
	}
	h := &BrokerHealth{Check: check, MaxAge: time.Hour, Timeout: 10 * time.Millisecond, Now: newFakeClock().Now}
	if ok, why := h.Get(context.Background()); ok || !strings.Contains(why, "deadline exceeded") {
		t.Fatalf("slow broker: ready=%v %q, want not ready (deadline exceeded)", ok, why)
	}
	slow.Store(false)
	if ok, why := h.Get(context.Background()); !ok {
		t.Fatalf("broker fast again: ready=%v %q; a timed-out check was cached", ok, why)
	}
	// The same holds for a check made elsewhere and stored.
	h.Store(false, "", fmt.Errorf("checking broker health: %w", context.DeadlineExceeded))
	if ok, why := h.Get(context.Background()); !ok {
		t.Fatalf("after a stored timeout: ready=%v %q, want the cached 200 kept", ok, why)
	}
}

// A caller that gives up while a check is in flight returns at once, without
// waiting for the check and without starting its own.
func TestBrokerHealthCallerLeavesWhileACheckIsInFlight(t *testing.T) {
	hc := newHeldCheck()
	started, release, checks := hc.started, hc.release, &hc.calls
	h := &BrokerHealth{Check: hc.check, MaxAge: time.Second, Timeout: time.Minute, Now: newFakeClock().Now}
	first := make(chan bool, 1)
	go func() { ok, _ := h.Get(context.Background()); first <- ok }()
	<-started

	ctx, cancel := context.WithCancel(context.Background())
	left := make(chan bool, 1)
	go func() { ok, _ := h.Get(ctx); left <- ok }()
	cancel()
	select {
	case ok := <-left:
		if ok {
			t.Errorf("a caller that gave up was told ready")
		}
	case <-time.After(5 * time.Second):
		close(release)
		t.Fatal("a cancelled caller still waits for another caller's check")
	}
	close(release)
	if ok := <-first; !ok {
		t.Error("the caller that waited was told not ready; the broker answered 200")
	}
	if n := checks.Load(); n != 1 {
		t.Errorf("%d broker /health calls, want 1", n)
	}
}

// Callers arriving while a check is in flight share its answer: a burst of
// readiness requests costs the broker one /health.
func TestBrokerHealthConcurrentCallersShareOneCheck(t *testing.T) {
	hc := newHeldCheck()
	started, release, checks := hc.started, hc.release, &hc.calls
	h := &BrokerHealth{Check: hc.check, MaxAge: time.Second, Timeout: time.Minute, Now: newFakeClock().Now}
	var wg sync.WaitGroup
	var ready atomic.Int64
	call := func() {
		if ok, _ := h.Get(context.Background()); ok {
			ready.Add(1)
		}
	}
	wg.Go(call)
	<-started
	for range 20 {
		wg.Go(call)
	}
	close(release)
	wg.Wait()
	if n := checks.Load(); n != 1 {
		t.Errorf("21 concurrent callers made %d broker /health calls, want 1", n)
	}
	if n := ready.Load(); n != 21 {
		t.Errorf("%d of 21 callers told ready", n)
	}
}

// The cached answer is used for MaxAge on the injected clock, then asked again.
func TestBrokerHealthAsksAgainOnceTheAnswerIsOld(t *testing.T) {
	clock := newFakeClock()
	var checks atomic.Int64
	check := func(ctx context.Context) (bool, string, error) { checks.Add(1); return honest(ctx) }
	h := &BrokerHealth{Check: check, MaxAge: time.Second, Timeout: time.Second, Now: clock.Now}
	h.Get(context.Background())
	clock.Advance(999 * time.Millisecond)
	h.Get(context.Background())
	if n := checks.Load(); n != 1 {
		t.Fatalf("%d checks within MaxAge, want 1", n)
	}
	clock.Advance(time.Millisecond)
	h.Get(context.Background())
	if n := checks.Load(); n != 2 {
		t.Fatalf("%d checks once the answer is MaxAge old, want 2", n)
	}
}

// One verdict for a /health check, the watch's and /readyz's: a refusal or a
// non-200 is evidence the broker is down; no answer in time is evidence of
// nothing (a busy broker), and not ready either — not "unreachable".
func TestJudgeHealth(t *testing.T) {
	refused := fmt.Errorf("checking broker health: %w", syscall.ECONNREFUSED)
	timedOut := fmt.Errorf("checking broker health: %w", context.DeadlineExceeded)
	for _, c := range []struct {
		name   string
		ok     bool
		reason string
		err    error
		want   HealthVerdict
		why    string
	}{
		{"200", true, "", nil, Healthy, ""},
		{"503", false, "broker /health answered HTTP 503: SHUTTING_DOWN", nil, Down, "broker /health answered HTTP 503: SHUTTING_DOWN"},
		{"refused", false, "", refused, Down, "broker unreachable: checking broker health: connection refused"},
		{"timed out", false, "", timedOut, Slow, "broker /health did not answer in time: checking broker health: context deadline exceeded"},
		{"no such host", false, "", errors.New("dial tcp: lookup broker: no such host"), Slow, "broker unreachable: dial tcp: lookup broker: no such host"},
	} {
		t.Run(c.name, func(t *testing.T) {
			v, why := JudgeHealth(c.ok, c.reason, c.err)
			if v != c.want || why != c.why {
				t.Errorf("JudgeHealth = %v %q, want %v %q", v, why, c.want, c.why)
			}
		})
	}
}

// A broker that answered 200 and then answers too late (busy at its CPU limit)
// stays ready for SlowGrace from its last 200, then not; one that refuses or
// answers non-200 is not ready at once, grace or not.
func TestBrokerHealthSlowAfterA200KeepsItForTheGrace(t *testing.T) {
	clock := newFakeClock()
	var answer atomic.Value // "ok", "slow", "refused", "503"
	answer.Store("ok")
	check := func(ctx context.Context) (bool, string, error) {
		switch answer.Load() {
		case "slow":
			<-ctx.Done()
			return false, "", fmt.Errorf("checking broker health: %w", ctx.Err())
		case "refused":
			return false, "", fmt.Errorf("checking broker health: %w", syscall.ECONNREFUSED)
		case "503":
			return false, "HTTP 503", nil
		}
		return true, "", nil
	}
	h := &BrokerHealth{Check: check, MaxAge: time.Second, Timeout: 5 * time.Millisecond, SlowGrace: 30 * time.Second, Now: clock.Now}
	if ok, why := h.Get(context.Background()); !ok {
		t.Fatalf("healthy broker: ready=%v %q", ok, why)
	}
	answer.Store("slow")
	for _, after := range []time.Duration{2 * time.Second, 28 * time.Second} { // 2 s, then 30 s after the 200
		clock.Advance(after)
		if ok, why := h.Get(context.Background()); !ok {
			t.Fatalf("slow /health %v after a 200 (grace 30s): ready=%v %q, want ready", clock.Now().Sub(time.Unix(1_800_000_000, 0)), ok, why)
		}
	}
	clock.Advance(time.Second)
	if ok, why := h.Get(context.Background()); ok || !strings.Contains(why, "did not answer in time") {
		t.Fatalf("slow /health 31 s after the last 200: ready=%v %q, want not ready (no answer in time)", ok, why)
	}
	// A 200 again starts the grace again; a refusal or a 503 inside it is not ready at once.
	for _, down := range []string{"refused", "503"} {
		answer.Store("ok")
		clock.Advance(time.Second)
		if ok, why := h.Get(context.Background()); !ok {
			t.Fatalf("broker back: ready=%v %q", ok, why)
		}
		answer.Store(down)
		clock.Advance(time.Second)
		if ok, _ := h.Get(context.Background()); ok {
			t.Fatalf("%s 1 s after a 200: ready, want not ready at once", down)
		}
	}
	// Without a grace, a slow check after a 200 is not ready.
	answer.Store("ok")
	strict := &BrokerHealth{Check: check, MaxAge: time.Second, Timeout: 5 * time.Millisecond, Now: clock.Now}
	strict.Get(context.Background())
	answer.Store("slow")
	clock.Advance(time.Second)
	if ok, _ := strict.Get(context.Background()); ok {
		t.Fatal("SlowGrace 0: a slow check after a 200 was ready")
	}
}
