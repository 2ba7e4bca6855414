package coldstart

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// pinotOK is the shape of a real broker success (pinot-facts.md), with timeUsedMs set.
func pinotOK(timeUsedMs int64) string {
	return fmt.Sprintf(`{"resultTable":{"dataSchema":{"columnNames":["count(*)"],"columnDataTypes":["LONG"]},"rows":[[1000000]]},`+
		`"exceptions":[],"numServersQueried":2,"numServersResponded":2,"numSegmentsQueried":8,"numSegmentsProcessed":8,`+
		`"numDocsScanned":1000000,"totalDocs":1000000,"timeUsedMs":%d,"requestId":"1","brokerId":"Broker_127.0.0.1_8099"}`, timeUsedMs)
}

// coldBroker answers slowly for its first `cold` after start (the cold JVM), then fast:
// it reports its own time as timeUsedMs, as the real broker does.
func coldBroker(t *testing.T, cold, slow, fast time.Duration) *httptest.Server {
	t.Helper()
	start := time.Now()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/query/sql" {
			http.NotFound(w, r)
			return
		}
		began := time.Now()
		d := fast
		if time.Since(start) < cold {
			d = slow
		}
		select {
		case <-time.After(d):
		case <-r.Context().Done(): // the client gave up: like a broker, finish nothing
			return
		}
		fmt.Fprint(w, pinotOK(time.Since(began).Milliseconds()))
	}))
	t.Cleanup(srv.Close)
	return srv
}

var testMix = Mix{{Name: "a", SQL: "SELECT COUNT(*) FROM t"}, {Name: "b", SQL: "SELECT SUM(x) FROM t"}}

func TestColdWindowShowsCancellationsWarmWindowNone(t *testing.T) {
	// Slow (400 ms > 250 ms timeout) for the first second, then 5 ms.
	srv := coldBroker(t, time.Second, 400*time.Millisecond, 5*time.Millisecond)
	bc := NewBrokerClient(srv.URL, nil)
	defer bc.Close()
	cfg := LoadConfig{Rate: 100, Duration: 2 * time.Second, Timeout: 250 * time.Millisecond}
	tr, err := RunLoad(t.Context(), cfg, testMix, bc.Send)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(tr.Records), 200; got != want {
		t.Fatalf("records = %d, want %d", got, want)
	}
	r := Summarise(tr, Window{0, 500 * time.Millisecond}, Window{1500 * time.Millisecond, 2 * time.Second})
	if r.ColdCancelRate < 0.9 {
		t.Errorf("cold cancel rate = %.2f, want ≥ 0.9 (every cold query outlives the timeout)", r.ColdCancelRate)
	}
	if r.ColdP99Ms != 250 {
		t.Errorf("cold p99 = %v ms, want the 250 ms timeout (cancellations count as the timeout)", r.ColdP99Ms)
	}
	if r.WarmCancelRate != 0 {
		t.Errorf("warm cancel rate = %.2f, want 0", r.WarmCancelRate)
	}
	if r.Warm.OK != r.Warm.Queries || r.Warm.Queries != 50 {
		t.Errorf("warm window: %d ok of %d, want 50 of 50", r.Warm.OK, r.Warm.Queries)
	}
	if r.WarmP99Ms > 150 {
		t.Errorf("warm p99 = %.1f ms, want ≪ 250 ms against a 5 ms broker", r.WarmP99Ms)
	}
	// 400 ms answers at 100/s with a 250 ms timeout: ~25 in flight at the peak.
	if r.PeakInflight < 15 || r.PeakInflight > 60 {
		t.Errorf("cold peak in-flight = %d, want ~25", r.PeakInflight)
	}
	if r.Warm.MeanTimeUsedMs < 4 || r.Warm.MeanTimeUsedMs > 100 {
		t.Errorf("warm mean timeUsedMs = %.1f, want ~5 (parsed from the answers)", r.Warm.MeanTimeUsedMs)
	}
}

func TestSlowAnswersNeverDelayArrivals(t *testing.T) {
	var sent atomic.Int64
	hang := func(ctx context.Context, q Query) Answer { // every query hangs until its timeout
		sent.Add(1)
		<-ctx.Done()
		return Answer{TimeUsedMs: -1, Err: "client timeout"}
	}
	cfg := LoadConfig{Rate: 200, Duration: time.Second, Timeout: 300 * time.Millisecond}
	begin := time.Now()
	tr, err := RunLoad(t.Context(), cfg, testMix, hang)
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(begin); took > 3*time.Second {
		t.Errorf("run took %s, want ~1.3 s: arrivals waited for answers", took)
	}
	if got := sent.Load(); got != 200 {
		t.Errorf("sent %d, want all 200 arrivals although none answered", got)
	}
	// Open loop: arrivals keep going while nothing has answered. The first answer comes back
	// at ~300 ms (the timeout); by then ~60 arrivals were due. A closed loop would have sent
	// one per client. (Counted against the first answer, not the wall clock, so a busy machine
	// that stalls this process stalls both sides alike.)
	firstEnd := time.Duration(1 << 62)
	for _, r := range tr.Records {
		if r.Outcome != OutcomeCancelled {
			t.Fatalf("record %d outcome %s, want cancelled", r.Index, r.Outcome)
		}
		firstEnd = min(firstEnd, r.Sent+r.Latency)
	}
	var before int
	for _, r := range tr.Records {
		if r.Sent < firstEnd {
			before++
		}
	}
	if before < 40 {
		t.Errorf("%d arrivals were sent before the first answer, want ~60: arrivals waited for answers", before)
	}
	if s := Stats(tr, Window{0, time.Second}); s.PeakInflight < 50 {
		t.Errorf("peak in-flight = %d, want ~60 (200/s × 0.3 s): queries ran concurrently", s.PeakInflight)
	}
}

func TestCancelStopsArrivalsAndJoinsQueries(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	var n atomic.Int64
	send := func(ctx context.Context, q Query) Answer {
		if n.Add(1) == 20 {
			cancel()
		}
		<-ctx.Done()
		return Answer{TimeUsedMs: -1, Err: "cancelled"}
	}
	begin := time.Now()
	tr, err := RunLoad(ctx, LoadConfig{Rate: 1000, Duration: 10 * time.Second, Timeout: 5 * time.Second}, testMix, send)
	if err == nil {
		t.Fatal("RunLoad returned no error after its ctx was cancelled")
	}
	// ~20 were sent before the cancel; a machine that stalls this process may let the generator
	// fire a catch-up burst first, but nowhere near the 10,000 scheduled.
	if tr == nil || len(tr.Records) < 20 || len(tr.Records) > 2000 {
		t.Fatalf("want the ~20 records sent before the cancel, got %d", len(tr.Records))
	}
	// The in-flight queries were cancelled, not left to their 5 s timeout (goleak checks they were joined).
	if took := time.Since(begin); took > 3*time.Second {
		t.Errorf("RunLoad took %s after a cancel at ~20 ms", took)
	}
}

func TestErrorsAreNotSuccesses(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Pinot reports query errors inside an HTTP 200.
		fmt.Fprint(w, `{"exceptions":[{"errorCode":410,"message":"BrokerResourceMissingError"}],"numServersQueried":0,"numServersResponded":0,"timeUsedMs":1}`)
	}))
	defer srv.Close()
	bc := NewBrokerClient(srv.URL, nil)
	defer bc.Close()
	tr, err := RunLoad(t.Context(), LoadConfig{Rate: 50, Duration: 200 * time.Millisecond}, testMix, bc.Send)
	if err != nil {
		t.Fatal(err)
	}
	s := Stats(tr, Window{0, time.Second})
	if s.Errors != s.Queries || s.Queries != 10 || s.CancelRate != 0 {
		t.Fatalf("stats = %+v, want 10 errors, no cancellations", s)
	}
	if s.P99Ms != 0 {
		t.Errorf("p99 = %v, want 0: errors are left out of latency", s.P99Ms)
	}
}

func TestRunLoadRejectsBadConfig(t *testing.T) {
	nop := func(context.Context, Query) Answer { return Answer{OK: true} }
	for _, tc := range []struct {
		cfg  LoadConfig
		mix  Mix
		want string
	}{
		{LoadConfig{Rate: 0, Duration: time.Second}, testMix, "load: rate 0/s: want > 0"},
		{LoadConfig{Rate: 1, Duration: 0}, testMix, "load: duration 0s: want > 0"},
		{LoadConfig{Rate: 1, Duration: time.Second}, nil, "load: empty query mix"},
	} {
		_, err := RunLoad(t.Context(), tc.cfg, tc.mix, nop)
		if err == nil || err.Error() != tc.want {
			t.Errorf("RunLoad(%+v) error = %v, want %q", tc.cfg, err, tc.want)
		}
	}
}

func TestCount(t *testing.T) {
	for _, tc := range []struct {
		rate float64
		d    time.Duration
		want int
	}{{100, time.Second, 100}, {3, time.Second, 3}, {2.5, time.Second, 3}, {288, 75 * time.Second, 21600}} {
		if got := (LoadConfig{Rate: tc.rate, Duration: tc.d}).Count(); got != tc.want {
			t.Errorf("Count(%v/s, %s) = %d, want %d", tc.rate, tc.d, got, tc.want)
		}
	}
}

// Until ends the arrivals when closed; queries already sent still complete, none is cancelled.
func TestRunLoadUntilEndsArrivalsEarly(t *testing.T) {
	srv := coldBroker(t, 0, 0, 50*time.Millisecond)
	bc := NewBrokerClient(srv.URL, nil)
	defer bc.Close()
	until := make(chan struct{})
	time.AfterFunc(500*time.Millisecond, func() { close(until) })
	begin := time.Now()
	tr, err := RunLoad(t.Context(), LoadConfig{Rate: 100, Duration: time.Minute, Until: until}, testMix, bc.Send)
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(begin); took > 5*time.Second {
		t.Errorf("run took %s after Until closed at 0.5 s", took)
	}
	if n := len(tr.Records); n < 20 || n > 80 {
		t.Errorf("%d arrivals in ~0.5 s at 100/s", n)
	}
	for _, r := range tr.Records {
		if r.Outcome != OutcomeOK {
			t.Fatalf("query %d: %s %s: in-flight queries must complete", r.Index, r.Outcome, r.Err)
		}
	}
}

// Observe sees every record once, as the trace holds it, while the load runs.
func TestRunLoadObserveSeesEveryRecord(t *testing.T) {
	var mu sync.Mutex
	seen := map[int]Record{}
	send := func(_ context.Context, q Query) Answer { return Answer{OK: q.SQL != testMix[1].SQL} }
	tr, err := RunLoad(t.Context(), LoadConfig{Rate: 200, Duration: 100 * time.Millisecond, Observe: func(r Record) {
		mu.Lock()
		defer mu.Unlock()
		if _, dup := seen[r.Index]; dup {
			t.Errorf("record %d observed twice", r.Index)
		}
		seen[r.Index] = r
	}}, testMix, send)
	if err != nil {
		t.Fatal(err)
	}
	if len(seen) != len(tr.Records) || len(seen) != 20 {
		t.Fatalf("observed %d records, the trace holds %d (want 20)", len(seen), len(tr.Records))
	}
	for _, r := range tr.Records {
		if o := seen[r.Index]; o.Outcome != r.Outcome || o.Query != r.Query {
			t.Errorf("record %d observed as %s %q, the trace holds %s %q", r.Index, o.Outcome, o.Query, r.Outcome, r.Query)
		}
	}
}
