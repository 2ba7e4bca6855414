package judge

import (
	"fmt"
	"sync"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/pkg/pinot"
)

// A query that never succeeds held the converged exit for good: its shape (and,
// multi-stage, its whole pool) waited for windows that never came, so under
// fail-closed the pod never became Ready. The rule: a query with no success yet
// is given up — dropped with its last error, like a query the broker cannot
// compile — after giveUpAfter failures that speak of the query, or after
// giveUpSlow of them once a third of the budget has passed since its first
// probe (a query that keeps timing out: three 5 s timeouts are the whole
// default budget). One success keeps it for the rest of the run. The LIMIT 1
// probe is never given up (it is the fallback, and a table that answers
// nothing holds the run as it should).
const (
	giveUpAfter = 3
	giveUpSlow  = 2
	giveUpShare = 3 // a third of the budget
)

// GiveUpPrefix starts the reason of a query given up by the rule above (a
// compile error's reason is the broker's own message).
const GiveUpPrefix = "no success in "

// tries is what the give-up rule knows of each query of a run.
type tries struct {
	mu     sync.Mutex
	budget time.Duration
	q      map[string]*try
}

type try struct {
	first    time.Time
	failures int
	worked   bool
	verdict  string // why it is given up; "" while it is kept
	// lastCounted: the last answer was a failure counted toward the verdict.
	lastCounted bool
}

func newTries(budget time.Duration) *tries {
	return &tries{budget: budget, q: map[string]*try{}}
}

// sent notes a probe of sql going out at at.
func (ts *tries) sent(sql string, at time.Time) {
	if ts == nil {
		return
	}
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if ts.q[sql] == nil {
		ts.q[sql] = &try{first: at}
	}
}

// answered notes sql's answer; about says whether a failure speaks of the
// query (aboutTheQuery).
func (ts *tries) answered(sql string, res pinot.Result, about bool, now time.Time) {
	if ts == nil {
		return
	}
	ts.mu.Lock()
	defer ts.mu.Unlock()
	t := ts.q[sql]
	if t == nil {
		t = &try{first: now}
		ts.q[sql] = t
	}
	t.lastCounted = false
	switch {
	case res.Class == pinot.Success:
		t.worked, t.verdict = true, ""
	case t.worked || !about || t.verdict != "":
	default:
		t.failures++
		t.lastCounted = true
		since := now.Sub(t.first)
		switch {
		case t.failures >= giveUpAfter:
			t.verdict = fmt.Sprintf(GiveUpPrefix+"%d probes (last: %s)", t.failures, res.Message)
		case t.failures >= giveUpSlow && since >= ts.budget/giveUpShare:
			t.verdict = fmt.Sprintf(GiveUpPrefix+"%d probes over %s, a third of the budget (last: %s)",
				t.failures, since.Round(time.Millisecond), res.Message)
		}
	}
}

// givenUp says why sql is given up; "" while it is kept.
func (ts *tries) givenUp(sql string) string {
	if ts == nil {
		return ""
	}
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if t := ts.q[sql]; t != nil {
		return t.verdict
	}
	return ""
}

// aboutTheQuery: a failed answer says something of the query itself — the
// broker answered it with an error of its own (it cannot compile, plan or run
// it, or it ran out of time), or the probe ran out its own timeout — and not of
// the cluster at the moment: a quota refusal, refused credentials, servers or
// segments not there (yet), a partial answer, an HTTP error or no connection, or
// the run's own end. A broker starting up answers 410 and 305 to every query for
// a while: those must not give up every shape.
func aboutTheQuery(res pinot.Result, timedOut bool) bool {
	switch {
	case res.Class == pinot.Success, res.Class == pinot.Unauthorized, pinot.QuotaRefused(res):
		return false
	case res.HTTPStatus == 200: // the broker answered, with exceptions of its own
		return res.ErrorCode != 0 && !clusterState[res.ErrorCode]
	}
	return timedOut
}

// clusterState are Pinot error codes that describe the cluster's state rather
// than the query: segments or routing missing, servers not responding, shutting
// down or out of capacity, scheduling, cancellation, a remote cluster.
var clusterState = map[int]bool{
	pinot.CodeSegmentsUnavailable: true, pinot.CodeBrokerResourceMiss: true, 420: true,
	pinot.CodeBrokerRequestSend: true, pinot.CodeServerNotResponding: true,
	210: true, 211: true, 230: true, 235: true, 240: true, 245: true, 503: true, 510: true,
}

// counted reports whether sql's last answer counted toward giving it up: a
// verdict on the query on its way, not the broker refusing, so the lane's
// pause does not hold it (as with a compile error).
func (ts *tries) counted(sql string) bool {
	if ts == nil {
		return false
	}
	ts.mu.Lock()
	defer ts.mu.Unlock()
	t := ts.q[sql]
	return t != nil && t.lastCounted
}
