package coldstart

import (
	"slices"
	"strings"
	"testing"
	"time"
)

const msec = time.Millisecond

func rec(sched, lat time.Duration, o Outcome, used int64) Record {
	return Record{Scheduled: sched, Sent: sched, Latency: lat, Outcome: o, TimeUsedMs: used}
}

func TestStatsCountCancellationsAsTheTimeout(t *testing.T) {
	tr := &Trace{Timeout: 2 * time.Second, Records: []Record{
		rec(0, 10*msec, OutcomeOK, 8),
		rec(100*msec, 20*msec, OutcomeOK, 12),
		rec(200*msec, 2*time.Second, OutcomeCancelled, -1),
		rec(300*msec, 1*msec, OutcomeError, -1),
		rec(5*time.Second, 30*msec, OutcomeOK, 25), // outside the window
	}}
	s := Stats(tr, Window{0, time.Second})
	want := WindowStats{Queries: 4, OK: 2, Cancelled: 1, Errors: 1, CancelRate: 0.25, ErrorRate: 0.25,
		P50Ms: 20, P99Ms: 2000, MaxMs: 2000, MeanTimeUsedMs: 10, PeakInflight: 2}
	if s != want {
		t.Errorf("Stats =\n %+v\nwant\n %+v", s, want)
	}
}

func TestPercentileNearestRank(t *testing.T) {
	v := make([]float64, 100)
	for i := range v {
		v[i] = float64(i + 1)
	}
	for _, tc := range []struct{ p, want float64 }{{50, 50}, {99, 99}, {100, 100}, {1, 1}, {0, 1}} {
		if got := Percentile(v, tc.p); got != tc.want {
			t.Errorf("p%v = %v, want %v", tc.p, got, tc.want)
		}
	}
	if got := Percentile([]float64{7}, 99); got != 7 {
		t.Errorf("p99 of one value = %v", got)
	}
	if got := Percentile(nil, 50); got != 0 {
		t.Errorf("p50 of nothing = %v", got)
	}
}

func TestInflightIsExact(t *testing.T) {
	// Three overlapping queries [0,100) [50,150) [60,70) and one that starts as the first ends.
	tr := &Trace{Records: []Record{
		rec(0, 100*msec, OutcomeOK, 1),
		rec(50*msec, 100*msec, OutcomeOK, 1),
		rec(60*msec, 10*msec, OutcomeOK, 1),
		rec(100*msec, 10*msec, OutcomeOK, 1),
	}}
	if got := PeakInflight(tr, Window{0, time.Second}); got != 3 {
		t.Errorf("peak = %d, want 3", got)
	}
	// From 80 ms on, at most 2 overlap ([0,100) ends exactly as [100,110) starts).
	if got := PeakInflight(tr, Window{80 * msec, time.Second}); got != 2 {
		t.Errorf("peak after 80 ms = %d, want 2", got)
	}
	// A window inside a long query still sees it in flight.
	if got := PeakInflight(tr, Window{120 * msec, 130 * msec}); got != 1 {
		t.Errorf("peak in [120,130) = %d, want 1", got)
	}
	series := InflightSeries(tr, 50*msec, 200*msec)
	var got []int
	for _, p := range series {
		got = append(got, p.Inflight)
	}
	if want := []int{1, 2, 2, 0}; !equalInts(got, want) {
		t.Errorf("series = %v, want %v", got, want)
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestParseAnswer(t *testing.T) {
	for _, tc := range []struct {
		name   string
		status int
		body   string
		ok     bool
		used   int64
		errHas string
	}{
		{"success", 200, pinotOK(17), true, 17, ""},
		{"pinot error inside 200", 200, `{"exceptions":[{"errorCode":427,"message":"1 servers not responded"}],"numServersQueried":2,"numServersResponded":1,"timeUsedMs":9}`, false, 9, "error 427"},
		{"partial", 200, `{"exceptions":[],"numServersQueried":2,"numServersResponded":1,"timeUsedMs":3}`, false, 3, "1 of 2 servers"},
		{"http error", 503, "Pinot broker status is STARTING", false, -1, "HTTP 503"},
		{"garbage", 200, "<html>", false, -1, "unparsable"},
		{"null body", 200, "null", false, -1, "not a JSON object"},
		{"partialResult", 200, `{"exceptions":[],"numServersQueried":2,"numServersResponded":2,"partialResult":true,"timeUsedMs":4}`, false, 4, "partial answer"},
	} {
		a := ParseAnswer(tc.status, []byte(tc.body))
		if a.OK != tc.ok || a.TimeUsedMs != tc.used || !strings.Contains(a.Err, tc.errHas) {
			t.Errorf("%s: ParseAnswer = %+v, want ok=%v used=%d err~%q", tc.name, a, tc.ok, tc.used, tc.errHas)
		}
	}
}

func TestParseMix(t *testing.T) {
	m, err := ParseMix(strings.NewReader(`
# comment
-- another
groupby: SELECT a, COUNT(*) FROM t GROUP BY a ORDER BY COUNT(*) DESC LIMIT 5;
SELECT COUNT(*) FROM t
SET useMultistageEngine=true; SELECT a FROM t JOIN u ON t.a = u.a LIMIT 5;
`))
	if err != nil {
		t.Fatal(err)
	}
	want := Mix{{Name: "groupby", SQL: "SELECT a, COUNT(*) FROM t GROUP BY a ORDER BY COUNT(*) DESC LIMIT 5"}, {Name: "q2", SQL: "SELECT COUNT(*) FROM t"},
		{Name: "q3", SQL: "SET useMultistageEngine=true; SELECT a FROM t JOIN u ON t.a = u.a LIMIT 5"}}
	if !slices.Equal(m, want) {
		t.Errorf("ParseMix = %+v, want %+v", m, want)
	}
	if _, err := ParseMix(strings.NewReader("# nothing\n\n")); err == nil || !strings.Contains(err.Error(), "no queries") {
		t.Errorf("empty file: err = %v", err)
	}
	if got := DefaultMix("t"); len(got) < 4 {
		t.Errorf("DefaultMix has %d queries, want the four shapes at least", len(got))
	}
}
