package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/internal/fakepinot"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/pinot"
)

// queryLog serves h and keeps the instant each query of the run reached it:
// the planning's sample reads and the queries before /health 200 are not the
// run's probes, and are left out.
type queryLog struct {
	h  http.Handler
	mu sync.Mutex
	at []time.Time
}

func (l *queryLog) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodPost && r.URL.Path == "/query/sql" {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		if !bytes.Contains(body, []byte(pinot.SampleQueryID)) && !bytes.Contains(body, []byte(pinot.ProbeIDPrefix+"early")) {
			l.mu.Lock()
			l.at = append(l.at, time.Now())
			l.mu.Unlock()
		}
	}
	l.h.ServeHTTP(w, r)
}

// counts are the queries logged, and the most within any window d.
func (l *queryLog) counts(d time.Duration) (n, most int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	j := 0
	for i := range l.at {
		for j < len(l.at) && l.at[j].Sub(l.at[i]) < d {
			j++
		}
		most = max(most, j-i)
	}
	return len(l.at), most
}

// WARMUP_MAX_PROBE_RATE through the binary: a broker answering at once gets 10
// queries a second at most, evenly spaced; the floor (300) out of the cap's
// reach in the 3 s budget is a warning at start, the gate opens by the budget,
// and /status says the cap and that it bounded the run.
func TestMaxProbeRateBoundsWhatTheBrokerSees(t *testing.T) {
	b := fakepinot.NewUnstartedBroker(fakepinot.ThreeServers())
	log := &queryLog{h: b.Handler()}
	srv := httptest.NewServer(log)
	defer srv.Close()
	c := fakepinot.NewController(fakepinot.ThreeServerTables()...)
	defer c.Close()
	addr := freeAddr(t)
	bin := binary(t) // built before the clock starts
	start := time.Now()
	sc := serveBinaryAt(t, bin, "WARMUP_BROKER_URL="+srv.URL, "WARMUP_CONTROLLER_URL="+c.URL(), "WARMUP_LISTEN_ADDR="+addr,
		"WARMUP_MAX_PROBE_RATE=10", "WARMUP_BUDGET=3s")
	waitReady(t, addr, sc.logs)
	opened := time.Since(start)
	n, most := log.counts(500 * time.Millisecond)
	t.Logf("gate open %s after the start; %d queries, at most %d in 500 ms", opened.Round(time.Millisecond), n, most)
	if opened < 2900*time.Millisecond || opened > 4*time.Second {
		t.Errorf("gate opened %s after the start, want by the 3 s budget", opened)
	}
	// One at once, then one every 100 ms for 3 s, and a query of slack for the clock.
	if n < 20 || n > 32 {
		t.Errorf("the broker got %d queries in a 3 s run capped at 10/s, want 30 (20–32)", n)
	}
	if most > 7 {
		t.Errorf("%d queries within 500 ms at 10/s: a burst above the cap", most)
	}
	for _, want := range []string{`"level":"WARN"`, "WARMUP_MAX_PROBE_RATE=10: WARMUP_MIN_ITERATIONS=300 takes 30 s at that rate, more than WARMUP_BUDGET=3s",
		`"max_probe_rate":10`} {
		if !strings.Contains(sc.logs.String(), want) {
			t.Errorf("logs lack %s:\n%s", want, sc.logs.String())
		}
	}
	code, body := httpGet("http://" + addr + "/status")
	var st struct {
		MaxProbeRate float64 `json:"max_probe_rate"`
		Outcome      string  `json:"outcome"`
		Decided      string  `json:"decided"`
	}
	if err := json.Unmarshal([]byte(body), &st); code != 200 || err != nil {
		t.Fatalf("/status: %d %v\n%s", code, err, body)
	}
	if st.MaxProbeRate != 10 || st.Outcome != "budget_expired" ||
		!strings.Contains(st.Decided, "(the floor of 300 probes needs 30 s at 10 probes/s, more than the 3 s budget)") {
		t.Errorf("/status max_probe_rate %v, outcome %q, decided %q: want 10, budget_expired, the cap named as the bound", st.MaxProbeRate, st.Outcome, st.Decided)
	}
	sc.stopBySIGTERM(t)
}
