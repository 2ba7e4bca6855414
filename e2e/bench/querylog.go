package bench

import (
	"bufio"
	"bytes"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/e2e/coldstart"
)

// The broker's query log (BaseBrokerRequestHandler, one INFO line per query, rate-limited by
// pinot.broker.query.log.maxRatePerSecond) is the broker's own per-query metric: it splits a
// query's timeMs into the broker's work before the scatter (SubmitDelayMs: compile, routing),
// the servers' answer (ResponseDelayMs, as the broker sees it), deserialisation and the
// reduce. That split says whether a slow cold window is the broker's cold path or the servers.

var (
	qlTime    = regexp.MustCompile(`^(\d\d:\d\d:\d\d\.\d\d\d) `)
	qlTimeMs  = regexp.MustCompile(`,timeMs=(-?\d+),`)
	qlReduce  = regexp.MustCompile(`,brokerReduceTimeMs=(-?\d+),`)
	qlServers = regexp.MustCompile(`RequestSentDelayMs\);(.*?),offlineThreadCpuTimeNs`)
)

// queryLogLine is one parsed query-log line.
type queryLogLine struct {
	at                           time.Time
	timeMs, submitMs, responseMs float64
	deserMs, reduceMs            float64
}

// brokerQueryLog reads the query-log lines of the broker's latest start (after the harness's
// last "=== " start marker) from logPath. Their clock is time of day; day is the date of ref
// (the Ready instant) in the local zone the JVM logs in.
func brokerQueryLog(logPath string, ref time.Time) ([]queryLogLine, error) {
	b, err := os.ReadFile(logPath)
	if err != nil {
		return nil, err
	}
	if i := bytes.LastIndex(b, []byte("\n=== ")); i >= 0 {
		b = b[i+1:]
	}
	var out []queryLogLine
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	for sc.Scan() {
		line := sc.Text()
		if !strings.Contains(line, "[BaseBrokerRequestHandler]") || !strings.Contains(line, "requestId=") {
			continue
		}
		if l, ok := parseQueryLogLine(line, ref); ok {
			out = append(out, l)
		}
	}
	return out, sc.Err()
}

func parseQueryLogLine(line string, ref time.Time) (queryLogLine, bool) {
	var l queryLogLine
	m := qlTime.FindStringSubmatch(line)
	if m == nil {
		return l, false
	}
	tod, err := time.ParseInLocation("15:04:05.000", m[1], ref.Location())
	if err != nil {
		return l, false
	}
	y, mo, d := ref.Date()
	l.at = time.Date(y, mo, d, tod.Hour(), tod.Minute(), tod.Second(), tod.Nanosecond(), ref.Location())
	// A log line from just before midnight, read with a Ready instant just after it.
	if l.at.Sub(ref) > 12*time.Hour {
		l.at = l.at.AddDate(0, 0, -1)
	} else if ref.Sub(l.at) > 12*time.Hour {
		l.at = l.at.AddDate(0, 0, 1)
	}
	var ok bool
	if l.timeMs, ok = num(qlTimeMs, line); !ok {
		return l, false
	}
	l.reduceMs, _ = num(qlReduce, line)
	// serverStats: "<server>=submit,response,size,deser,sent;<server>=..." — take the slowest server.
	if sm := qlServers.FindStringSubmatch(line); sm != nil {
		for _, srv := range strings.Split(sm[1], ";") {
			_, vals, found := strings.Cut(srv, "=")
			f := strings.Split(vals, ",")
			if !found || len(f) < 4 {
				continue
			}
			l.submitMs = max(l.submitMs, atof(f[0]))
			l.responseMs = max(l.responseMs, atof(f[1]))
			l.deserMs = max(l.deserMs, atof(f[3]))
		}
	}
	return l, true
}

func num(re *regexp.Regexp, s string) (float64, bool) {
	m := re.FindStringSubmatch(s)
	if m == nil {
		return 0, false
	}
	return atof(m[1]), true
}

func atof(s string) float64 {
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || v < 0 {
		return 0
	}
	return v
}

// queryLogStats summarises the lines logged in [from, to).
func queryLogStats(lines []queryLogLine, from, to time.Time) *coldstart.BrokerLogStats {
	var t, sub, resp, red []float64
	for _, l := range lines {
		if l.at.Before(from) || !l.at.Before(to) {
			continue
		}
		t = append(t, l.timeMs)
		sub = append(sub, l.submitMs)
		resp = append(resp, l.responseMs)
		red = append(red, l.reduceMs)
	}
	if len(t) == 0 {
		return nil
	}
	med := func(v []float64) float64 {
		slices.Sort(v)
		return coldstart.Percentile(v, 50)
	}
	p99 := coldstart.Percentile(slices.Sorted(slices.Values(t)), 99)
	return &coldstart.BrokerLogStats{Logged: len(t), P50TimeMs: med(t), P99TimeMs: p99,
		P50SubmitDelayMs: med(sub), P50ServerResponseMs: med(resp), P50ReduceMs: med(red)}
}
