package cpuboost

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/pkg/kubeapi"
)

// slowRetry is Settings.SlowRetry's default, the pace these tests expect once a failure is
// reported.
const slowRetry = 2 * time.Minute

// runFor runs until the simulated clock passes t0+d, and fails the test if Run ended before
// (it gave up) or if the clock stopped moving (a loop without a sleep: the wall-clock timeout
// ends it). It returns how many times the runner slept.
func (b *bed) runFor(t *testing.T, d time.Duration) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	sleeps := 0
	b.r.Sleep = func(c context.Context, w time.Duration) bool {
		sleeps++
		b.c.Sleep(c, w)
		if b.c.Now().After(t0.Add(d)) {
			cancel()
		}
		return c.Err() == nil
	}
	_ = b.r.Run(ctx)
	if now := b.c.Now(); !now.After(t0.Add(d)) {
		if ctx.Err() != nil {
			t.Fatalf("the clock stopped at %s: the runner spins without sleeping (last: %+v)", now.Sub(t0), b.rec.last())
		}
		t.Fatalf("Run returned at %s, before %s: it gave up (last: %+v)", now.Sub(t0), d, b.rec.last())
	}
	return sleeps
}

// An API server unreachable from the sidecar's start to +7 min (a control-plane upgrade):
// the fast retries end at +6m33s, reported failed; the resize goes on at the slow pace and
// the CPU is given back once the API server answers again.
func TestOutageLongerThanTheFastRetriesEndsGivenBack(t *testing.T) {
	b := newBed(t)
	back := t0.Add(7 * time.Minute)
	down := func(now time.Time) error {
		if now.Before(back) {
			return errRefused
		}
		return nil
	}
	b.pods.getErr, b.pods.resizeErr = down, down
	b.run(t)
	wantStates(t, b.rec, StateBoosted, StateGivingBack, StateFailed, StateGivingBack, StateGivenBack)
	failed, ok := b.rec.find(StateFailed, "the resize failed 10 times in a row")
	if !ok || !strings.Contains(failed.Reason, "keeps its boosted CPU") || !strings.Contains(failed.LastError, "connection refused") {
		t.Errorf("failed status %+v", failed)
	}
	_, resized, at := b.pods.calls()
	if len(resized) < 11 {
		t.Fatalf("%d resize attempts, want the 10 fast ones and more", len(resized))
	}
	last := at[len(at)-1]
	if last.Before(back) || last.After(back.Add(slowRetry)) {
		t.Errorf("the last resize at %s, want within one slow retry (%s) of the API server's return at %s", last.Sub(t0), slowRetry, back.Sub(t0))
	}
	for i := 10; i < len(at); i++ {
		if d := at[i].Sub(at[i-1]); d < slowRetry {
			t.Errorf("resize %d came %s after the one before, want the slow pace (%s)", i+1, d, slowRetry)
		}
	}
	if st := b.rec.last(); st.Attempts != len(resized) || st.LastError != "" {
		t.Errorf("final %+v", st)
	}
}

// One 403 on the first read of the pod (RBAC not yet propagated): reported failed, the pod is
// read again at the slow pace, and the CPU is given back on the evidence.
func TestEarlyForbiddenReadThenAllowedEndsGivenBack(t *testing.T) {
	b := newBed(t)
	b.pods.getErrs = []error{apiErr(http.StatusForbidden, "Forbidden", `pods "pinot-broker-0" is forbidden: User "system:serviceaccount:pinot:pinot-broker-warmup" cannot get resource "pods" in API group "" in the namespace "pinot"`)}
	b.run(t)
	wantStates(t, b.rec, StateBoosted, StateFailed, StateBoosted, StateGivingBack, StateGivenBack)
	if _, ok := b.rec.find(StateFailed, "no permission to read the pod"); !ok {
		t.Error("the 403 was not reported as failed, naming the RBAC")
	}
	reads := b.pods.readsAt()
	if len(reads) < 2 || reads[1].Sub(reads[0]) < time.Minute || reads[1].Sub(reads[0]) > 5*time.Minute {
		t.Errorf("reads at %v, want the second one at the slow pace (minutes after the first)", reads)
	}
	if st := b.rec.last(); !strings.Contains(st.GiveBackBecause, "the settle time") || !st.PodStartedAt.Equal(t0) {
		t.Errorf("final %+v", st)
	}
}

// Refused resizes (403 RBAC or admission, 404, 422) are reported failed, each with the reason an
// operator acts on, and sent again at the slow pace: once allowed, the CPU is given back.
func TestRefusedResizesFailThenRetrySlowly(t *testing.T) {
	for _, c := range []struct {
		err  error
		want string
	}{
		{apiErr(http.StatusForbidden, "Forbidden", `pods "pinot-broker-0" is forbidden: User "system:serviceaccount:pinot:pinot" cannot patch resource "pods/resize" in API group "" in the namespace "pinot"`),
			"no permission to resize the pod: the sidecar's ServiceAccount needs get on pods and patch on pods/resize"},
		// An admission plugin's 403 (seen on the test bed's API server for a pod bound to an
		// unknown node) is no RBAC matter.
		{apiErr(http.StatusForbidden, "Forbidden", `pods "pinot-broker-0" is forbidden: node "boost-node" not found`), "the API server forbade the resize: "},
		{apiErr(http.StatusUnprocessableEntity, "Invalid", "Pod QOS Class may not change as a result of resizing"), "the API server refused the resize: resizing container broker of pod pinot/pinot-broker-0: HTTP 422 Invalid: Pod QOS Class may not change"},
		{apiErr(http.StatusNotFound, "NotFound", "the server could not find the requested resource"), "no resize subresource for this pod (in-place resize needs Kubernetes 1.33 or later"},
	} {
		b := newBed(t)
		b.pods.resizeErrs = []error{c.err, c.err}
		b.run(t)
		wantStates(t, b.rec, StateBoosted, StateGivingBack, StateFailed, StateGivingBack, StateGivenBack)
		failed, ok := b.rec.find(StateFailed, c.want)
		if !ok || !strings.Contains(failed.Reason, "keeps its boosted CPU") || !strings.Contains(failed.Reason, "sent again every 2m0s") {
			t.Errorf("%v: no failed status saying %q: %+v", c.err, c.want, failed)
		}
		_, resized, at := b.pods.calls()
		if len(resized) != 3 {
			t.Fatalf("%v: %d resizes, want 3", c.err, len(resized))
		}
		if at[1].Sub(at[0]) != slowRetry || at[2].Sub(at[1]) != slowRetry {
			t.Errorf("%v: resizes at %v, want %s apart (no fast retries of a refusal)", c.err, at, slowRetry)
		}
		// The second refusal, the same as the first, is no new log line.
		if n := b.rec.changes(); n != 5 {
			t.Errorf("%v: %d changes of state or reason, want 5", c.err, n)
		}
	}
}

// Infeasible (a node that cannot hold the pod's request; the static CPU manager's answer for a
// whole-core Guaranteed pod): reported failed; the spec is already at the target, so the pod is
// re-read at the slow pace, not resized again; a kubelet that applies it later ends given back.
func TestInfeasibleThenAppliedReadsSlowly(t *testing.T) {
	b := newBed(t)
	applies := t0.Add(40 * time.Minute)
	b.pods.kubelet = func(p *kubeapi.Pod, reads int) {
		if b.c.Now().Before(applies) {
			p.Status.Conditions = []kubeapi.Condition{{Type: kubeapi.ConditionResizePending, Status: "True", Reason: kubeapi.ReasonInfeasible, Message: "Node didn't have enough capacity"}}
			return
		}
		p.Status.Conditions = nil
		applyAt(0)(p, reads)
	}
	b.run(t)
	wantStates(t, b.rec, StateBoosted, StateGivingBack, StateFailed, StateGivenBack)
	if _, ok := b.rec.find(StateFailed, "Infeasible: Node didn't have enough capacity"); !ok {
		t.Error("Infeasible was not reported as failed")
	}
	gets, resized, _ := b.pods.calls()
	// One read at the start, the confirm's first, then one per slow retry over ~37 minutes.
	if len(resized) != 1 || gets > 25 {
		t.Errorf("%d resizes (want 1), %d reads (want at most 25) in 40 minutes", len(resized), gets)
	}
	if b.c.Now().After(applies.Add(slowRetry + time.Second)) {
		t.Errorf("given back at %s, want within one slow retry of %s", b.c.Now().Sub(t0), applies.Sub(t0))
	}
}

// A refusal that never ends: the runner keeps at it for the pod's life, one resize per slow
// retry, reported failed, one log line for it, and no spin.
func TestPermanentRefusalRetriesWithoutSpinning(t *testing.T) {
	b := newBed(t)
	b.pods.resizeErr = func(time.Time) error {
		return apiErr(http.StatusUnprocessableEntity, "Invalid", "Pod QOS Class may not change as a result of resizing")
	}
	sleeps := b.runFor(t, time.Hour)
	gets, resized, _ := b.pods.calls()
	st := b.rec.last()
	// Due at 2m30s, then one every 2 minutes: 29 in the hour.
	if len(resized) < 25 || len(resized) > 31 || gets != 1 || st.State != StateFailed || st.Attempts != len(resized) {
		t.Errorf("%d resizes (want 25–31), %d reads (want 1); final %+v", len(resized), gets, st)
	}
	// The evidence ticks (a second apart until due) and one sleep per retry.
	if sleeps > 200 {
		t.Errorf("%d sleeps in the hour", sleeps)
	}
	if n := b.rec.changes(); n != 3 {
		t.Errorf("%d changes of state or reason (logged), want 3: boosted, giving_back, failed", n)
	}
}

// The pod is never read (403 on get until a Role fixed after 12 minutes): the maximum boost
// time counts from the sidecar's start, and the resize is sent when it is due.
func TestMaximumBoostTimeWithoutReadingThePod(t *testing.T) {
	b := newBed(t)
	b.r.Settings.Settle = time.Hour
	fixed := t0.Add(12 * time.Minute)
	b.pods.getErr = func(now time.Time) error {
		if now.Before(fixed) {
			return apiErr(http.StatusForbidden, "Forbidden", `User "system:serviceaccount:pinot:pinot" cannot get resource "pods"`)
		}
		return nil
	}
	b.run(t)
	_, resized, at := b.pods.calls()
	due := t0.Add(5*time.Second + 10*time.Minute)
	if len(resized) == 0 || at[0].Before(due) || at[0].After(due.Add(2*time.Second)) {
		t.Fatalf("resizes at %v, want the first at %s (the sidecar's start + the maximum boost time)", at, due.Sub(t0))
	}
	st := b.rec.last()
	if st.State != StateGivenBack || !strings.Contains(st.GiveBackBecause, "maximum boost time") {
		t.Errorf("final %+v", st)
	}
}

// A target the pod cannot return to (a configuration a new pod spec fixes): reported failed at
// once, never resized, and the pod re-read at the slow pace for as long as it runs.
func TestTargetThePodCannotReturnToIsReReadSlowly(t *testing.T) {
	for _, c := range []struct {
		edit func(p *kubeapi.Pod)
		want string
	}{
		{func(p *kubeapi.Pod) { delete(p.Spec.Containers[0].Resources.Limits, "cpu") }, "no CPU limit to give back to 2 (a resize cannot add one)"},
		{func(p *kubeapi.Pod) { p.Spec.Containers[0].Resources.Limits["cpu"] = "1500m" }, "CPU limit (1500m) is below the target (2): nothing to give back"},
		{func(p *kubeapi.Pod) { p.Spec.Containers[0].Name = "main" }, `no container named "broker"`},
	} {
		b := newBed(t)
		c.edit(&b.pods.pod)
		b.runFor(t, time.Hour)
		gets, resized, _ := b.pods.calls()
		st := b.rec.last()
		if len(resized) != 0 || gets < 25 || gets > 31 || st.State != StateFailed || !strings.Contains(st.Reason, c.want) || !strings.Contains(st.Reason, "read again every 2m0s") {
			t.Errorf("%d resizes (want 0), %d reads (want 25–31); final %+v, want %q", len(resized), gets, st, c.want)
		}
		if n := b.rec.changes(); n != 2 {
			t.Errorf("%q: %d changes of state or reason, want 2: boosted, failed", c.want, n)
		}
	}
}
