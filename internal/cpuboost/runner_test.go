package cpuboost

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/pkg/kubeapi"
)

var target = kubeapi.CPU{Request: "1", Limit: "2"}

type bed struct {
	c    *clock
	pods *pods
	rec  *recorder
	r    *Runner
}

// newBed: the sidecar starts at t0+5s in a pod started at t0; the gate opens at t0+30s.
func newBed(t *testing.T) *bed {
	t.Helper()
	c := &clock{t: t0.Add(5 * time.Second)}
	p := &pods{c: c, pod: boostedPod(t0), kubelet: applyAt(1)}
	rec := &recorder{}
	r := &Runner{
		Settings: Settings{Container: "broker", Target: target, MaxDuration: 10 * time.Minute, Settle: 2 * time.Minute,
			NoJITNote: "WARMUP_JVM_METRICS_URL is empty"},
		Pods: p, Gate: gate{c: c, openAt: t0.Add(30 * time.Second)}, Report: rec, Now: c.Now, Sleep: c.Sleep,
	}
	return &bed{c: c, pods: p, rec: rec, r: r}
}

func (b *bed) run(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := b.r.Run(ctx); err != nil {
		t.Fatalf("Run: %v", err)
	}
	if ctx.Err() != nil {
		t.Fatal("Run did not end")
	}
}

func wantStates(t *testing.T, rec *recorder, want ...string) {
	t.Helper()
	if got := rec.states(); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("states %v, want %v (last: %+v)", got, want, rec.last())
	}
}

// The evidence: the gate open and the JIT compiler quiet for 10 readings. The CPU goes back to
// the target once, and the kubelet's report ends it.
func TestGivenBackWhenTheGateIsOpenAndTheJITQuiet(t *testing.T) {
	b := newBed(t)
	quietAt := t0.Add(90 * time.Second)
	b.r.Compile = compile{c: b.c, at: busyUntil(quietAt)}
	b.run(t)
	wantStates(t, b.rec, StateBoosted, StateGivingBack, StateGivenBack)
	_, resized, at := b.pods.calls()
	if len(resized) != 1 || resized[0] != target {
		t.Fatalf("resizes %+v, want one to %+v", resized, target)
	}
	// Rates over 4 s reach 0 four seconds after the last compilation, then 10 quiet readings.
	if lo, hi := quietAt.Add(4*time.Second+9*time.Second), quietAt.Add(16*time.Second); at[0].Before(lo) || at[0].After(hi) {
		t.Errorf("given back at %s, want between %s and %s", at[0].Sub(t0), lo.Sub(t0), hi.Sub(t0))
	}
	st := b.rec.last()
	if !strings.Contains(st.GiveBackBecause, "JIT compiler is quiet") || !strings.Contains(st.Reason, "request 1, limit 2") ||
		st.Applied == nil || st.Applied.Limit != "2" || st.Attempts != 1 || !st.PodStartedAt.Equal(t0) {
		t.Errorf("final status %+v", st)
	}
}

// While the gate is closed a quiet JIT (a broker not started yet) gives nothing back.
func TestQuietJITBeforeTheGateOpensHoldsTheBoost(t *testing.T) {
	b := newBed(t)
	b.r.Compile = compile{c: b.c, at: func(time.Time) (time.Duration, error) { return 0, nil }}
	b.r.Gate = gate{c: b.c, openAt: t0.Add(3 * time.Minute)}
	b.run(t)
	if _, _, at := b.pods.calls(); len(at) != 1 || at[0].Before(t0.Add(3*time.Minute)) {
		t.Errorf("given back at %v, want at the gate's opening (3m) or after", at)
	}
}

// No JIT source: the settle time after the gate opened.
func TestSettleTimeWithoutAJITSignal(t *testing.T) {
	b := newBed(t)
	b.run(t)
	_, _, at := b.pods.calls()
	if want := t0.Add(30*time.Second + 2*time.Minute); len(at) != 1 || at[0].Before(want) || at[0].After(want.Add(2*time.Second)) {
		t.Errorf("given back at %v, want at %s (the gate's opening + the settle time)", at, want.Sub(t0))
	}
	if st := b.rec.last(); !strings.Contains(st.GiveBackBecause, "no JIT signal: WARMUP_JVM_METRICS_URL is empty") {
		t.Errorf("give_back_because %q", st.GiveBackBecause)
	}
}

// A JIT source that stops answering counts as none once Failures readings in a row failed.
func TestFailingJITFallsBackToTheSettleTime(t *testing.T) {
	b := newBed(t)
	b.r.Compile = compile{c: b.c, at: func(time.Time) (time.Duration, error) { return 0, errRefused }}
	b.run(t)
	if st := b.rec.last(); st.State != StateGivenBack || !strings.Contains(st.GiveBackBecause, "its last readings failed: reading: connection refused") {
		t.Errorf("final %+v", st)
	}
}

// A broker restart (the gate closes) restarts the settle time: it counts from the last opening.
func TestSettleCountsFromTheLastOpening(t *testing.T) {
	b := newBed(t)
	b.r.Gate = gate{c: b.c, openAt: t0.Add(30 * time.Second), closedFrom: t0.Add(time.Minute), closeTo: t0.Add(100 * time.Second)}
	b.run(t)
	if _, _, at := b.pods.calls(); len(at) != 1 || at[0].Before(t0.Add(100*time.Second+2*time.Minute)) {
		t.Errorf("given back at %v, want 2m after the reopening at 1m40s", at)
	}
}

// A compiler that never quiets: the settle time after the gate opened (t0+30s), the JIT signal
// notwithstanding.
func TestCompilingJITGivenBackAtTheSettleTime(t *testing.T) {
	b := newBed(t)
	b.r.Compile = compile{c: b.c, at: busyUntil(t0.Add(time.Hour))}
	b.run(t)
	_, _, at := b.pods.calls()
	if want := t0.Add(30*time.Second + 2*time.Minute); len(at) != 1 || at[0].Before(want) || at[0].After(want.Add(2*time.Second)) {
		t.Errorf("given back at %v, want at %s", at, want.Sub(t0))
	}
	if st := b.rec.last(); !strings.Contains(st.GiveBackBecause, "the settle time); the broker's JIT compiler is not quiet yet") {
		t.Errorf("final %+v", st)
	}
}

// A compiler that never quiets and a settle time longer than the maximum: the maximum boost
// time, counted from the pod's start (the sidecar started later, as after a restart of its own).
func TestMaximumBoostTimeFromThePodsStart(t *testing.T) {
	b := newBed(t)
	b.r.Settings.Settle = time.Hour
	b.c.t = t0.Add(4 * time.Minute)
	b.r.Compile = compile{c: b.c, at: busyUntil(t0.Add(time.Hour))}
	b.run(t)
	_, _, at := b.pods.calls()
	if want := t0.Add(10 * time.Minute); len(at) != 1 || at[0].Before(want) || at[0].After(want.Add(2*time.Second)) {
		t.Errorf("given back at %v, want at %s", at, want.Sub(t0))
	}
	if st := b.rec.last(); !strings.Contains(st.GiveBackBecause, "maximum boost time (10m0s)") || !st.MaxUntil.Equal(t0.Add(10*time.Minute)) {
		t.Errorf("final %+v", st)
	}
}

var errRefused = &kubeapi.Error{Op: "reading", Err: errString("connection refused")}

type errString string

func (e errString) Error() string { return string(e) }

func apiErr(code int, reason, msg string) error {
	return &kubeapi.Error{Op: "resizing container broker of pod pinot/pinot-broker-0", Status: code, Reason: reason, Message: msg}
}

// No answer, 5xx, 409, 429: retried with a doubling wait, then given back.
func TestTransientFailuresAreRetried(t *testing.T) {
	b := newBed(t)
	b.pods.resizeErrs = []error{errRefused, apiErr(503, "ServiceUnavailable", ""), apiErr(409, "Conflict", ""), apiErr(429, "TooManyRequests", "")}
	b.run(t)
	wantStates(t, b.rec, StateBoosted, StateGivingBack, StateGivenBack)
	_, resized, at := b.pods.calls()
	if len(resized) != 5 {
		t.Fatalf("%d resize attempts, want 5", len(resized))
	}
	for i, want := range []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second} {
		if got := at[i+1].Sub(at[i]); got != want {
			t.Errorf("wait before attempt %d: %s, want %s", i+2, got, want)
		}
	}
	var retries int
	for _, s := range b.rec.all {
		if strings.HasPrefix(s.Reason, "resize attempt") && s.LastError != "" {
			retries++
		}
	}
	if st := b.rec.last(); retries < 4 || st.Attempts != 5 || st.LastError != "" {
		t.Errorf("%d retry reports; final %+v", retries, st)
	}
}

// The fast retries: MaxAttempts at a doubling wait, then failed (the last error kept) and the
// slow pace, until the API server answers.
func TestFastRetriesThenTheSlowPace(t *testing.T) {
	b := newBed(t)
	for range 20 {
		b.pods.resizeErrs = append(b.pods.resizeErrs, apiErr(500, "InternalError", "etcdserver: request timed out"))
	}
	b.run(t)
	_, resized, at := b.pods.calls()
	if len(resized) != 21 {
		t.Fatalf("%d attempts, want 21", len(resized))
	}
	want := []time.Duration{1, 2, 4, 8, 16, 32, 60, 60, 60, 120, 120, 120, 120, 120, 120, 120, 120, 120, 120, 120}
	for i, w := range want {
		if got := at[i+1].Sub(at[i]); got != w*time.Second {
			t.Errorf("wait before attempt %d: %s, want %s", i+2, got, w*time.Second)
		}
	}
	failed, ok := b.rec.find(StateFailed, "the resize failed 10 times in a row")
	if !ok || !strings.Contains(failed.LastError, "etcdserver") || failed.Attempts != 10 {
		t.Errorf("failed status %+v", failed)
	}
	if st := b.rec.last(); st.State != StateGivenBack || st.Attempts != 21 || st.LastError != "" {
		t.Errorf("final %+v", st)
	}
}

// A deferred resize is the kubelet's to retry: reported, waited for, then given back.
func TestDeferredThenApplied(t *testing.T) {
	b := newBed(t)
	b.pods.kubelet = func(p *kubeapi.Pod, reads int) {
		switch {
		case reads < 3:
			p.Status.Conditions = []kubeapi.Condition{{Type: kubeapi.ConditionResizePending, Status: "True", Reason: kubeapi.ReasonDeferred, Message: "Node didn't have enough resource: cpu"}}
		default:
			p.Status.Conditions = nil
			applyAt(0)(p, reads)
		}
	}
	b.run(t)
	var sawDeferred bool
	for _, s := range b.rec.all {
		sawDeferred = sawDeferred || (s.State == StateGivingBack && strings.Contains(s.Reason, "(Deferred): Node didn't have enough resource"))
	}
	if !sawDeferred || b.rec.last().State != StateGivenBack {
		t.Errorf("deferred reported %v; final %+v", sawDeferred, b.rec.last())
	}
}

// A kubelet that never reports (an API server alone) leaves the give-back waiting: reported,
// polled ever more slowly, never failed.
func TestUnreportedResizeWaits(t *testing.T) {
	b := newBed(t)
	b.pods.kubelet = nil
	b.pods.pod.Status.ContainerStatuses = nil
	ctx, cancel := context.WithCancel(context.Background())
	b.r.Sleep = func(c context.Context, d time.Duration) bool {
		b.c.Sleep(c, d)
		if b.c.Now().After(t0.Add(time.Hour)) {
			cancel()
		}
		return c.Err() == nil
	}
	_ = b.r.Run(ctx)
	gets, _, _ := b.pods.calls()
	st := b.rec.last()
	if st.State != StateGivingBack || !strings.Contains(st.Reason, "waiting for the kubelet to report") || gets > 200 {
		t.Errorf("after an hour: %d reads; final %+v", gets, st)
	}
}

// A sidecar restarted after the give-back finds the target and sends no resize.
func TestAlreadyAtTheTarget(t *testing.T) {
	b := newBed(t)
	b.pods.pod.Spec.Containers[0].Resources.Requests["cpu"] = "1000m"
	b.pods.pod.Spec.Containers[0].Resources.Limits["cpu"] = "2"
	b.pods.pod.Status.ContainerStatuses[0].Resources = &kubeapi.Resources{Requests: map[string]string{"cpu": "1"}, Limits: map[string]string{"cpu": "2"}}
	b.run(t)
	if _, resized, _ := b.pods.calls(); len(resized) != 0 {
		t.Errorf("resized %+v", resized)
	}
	if st := b.rec.last(); st.State != StateGivenBack || !strings.Contains(st.GiveBackBecause, "already the target") {
		t.Errorf("final %+v", st)
	}
}

// Reading the pod at the start: a wrong name is failed, naming the variables, and read again
// slowly; an API server that does not answer is tried again, and the give-back still comes.
func TestReadingThePodAtTheStart(t *testing.T) {
	b := newBed(t)
	b.pods.getErrs = []error{apiErr(404, "NotFound", `pods "pinot-broker-0" not found`)}
	b.run(t)
	if _, ok := b.rec.find(StateFailed, "WARMUP_POD_NAME"); !ok || b.rec.last().State != StateGivenBack {
		t.Errorf("404: %v; final %+v", b.rec.states(), b.rec.last())
	}
	b = newBed(t)
	for range 500 {
		b.pods.getErrs = append(b.pods.getErrs, errRefused)
	}
	b.run(t)
	st := b.rec.last()
	if _, resized, _ := b.pods.calls(); len(resized) != 1 {
		t.Errorf("API down at the start: resizes %v; final %+v", resized, st)
	}
	var sawErr bool
	for _, s := range b.rec.all {
		sawErr = sawErr || (s.State == StateBoosted && strings.Contains(s.LastError, "connection refused"))
	}
	if !sawErr {
		t.Error("the failed reads were not reported while boosted")
	}
}

// A bug in a dependency is the state failed, not a crash of the sidecar; the runner starts
// over at the slow pace and gives back.
func TestPanicIsAFailureNotACrash(t *testing.T) {
	b := newBed(t)
	b.pods.panics = 1
	b.run(t)
	if _, ok := b.rec.find(StateFailed, "internal error: boom"); !ok {
		t.Errorf("the panic was not reported failed: %v", b.rec.states())
	}
	if st := b.rec.last(); st.State != StateGivenBack {
		t.Errorf("final %+v", st)
	}
}

// Stopping ends Run promptly in any state.
func TestStopsWithItsContext(t *testing.T) {
	b := newBed(t)
	b.r.Sleep = nil // real sleeps
	b.r.Now = nil
	// On the real clock the pod starts now: started at the fixed t0, it would be past its
	// maximum boost time 10 minutes after t0 and give back at once.
	b.pods.pod = boostedPod(time.Now())
	b.r.Settings.Tick = 10 * time.Millisecond
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = b.r.Run(ctx); close(done) }()
	time.Sleep(50 * time.Millisecond)
	cancel()
	select {
	case <-done:
	case <-time.After(2 * time.Second):
		t.Fatal("Run did not stop")
	}
	if st := b.rec.last(); st.State != StateBoosted {
		t.Errorf("state %s", st.State)
	}
}
