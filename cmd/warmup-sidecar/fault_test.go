package main

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/internal/fakepinot"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/prober"
)

// pinotFake is one httptest server playing broker and controller for the binary,
// with a replaceable query answer, optional required Authorization, and counts.
type pinotFake struct {
	srv *httptest.Server

	mu      sync.Mutex
	query   func(w http.ResponseWriter, r *http.Request, sql string)
	tables  func(w http.ResponseWriter)
	routing func(w http.ResponseWriter, table string, call int64)
	auth    string   // required Authorization value; "" none
	seen    []string // distinct Authorization values seen on queries, in order

	probes, noScatter, routingCalls, okAnswers, unauthorized atomic.Int64
}

func newPinotFake(t *testing.T) *pinotFake {
	t.Helper()
	f := &pinotFake{}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /health", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, "OK") })
	mux.HandleFunc("GET /tables", func(w http.ResponseWriter, r *http.Request) {
		if !f.authorized(w, r) {
			return
		}
		f.mu.Lock()
		h := f.tables
		f.mu.Unlock()
		if h != nil {
			h(w)
			return
		}
		fmt.Fprint(w, `{"tables":["orders"]}`)
	})
	mux.HandleFunc("GET /debug/routingTable/{t}", func(w http.ResponseWriter, r *http.Request) {
		if !f.authorized(w, r) {
			return
		}
		n := f.routingCalls.Add(1)
		f.mu.Lock()
		h := f.routing
		f.mu.Unlock()
		if h != nil {
			h(w, r.PathValue("t"), n)
			return
		}
		fmt.Fprintf(w, `{"%s_OFFLINE":{"Server_1":["s0"]}}`, r.PathValue("t"))
	})
	mux.HandleFunc("POST /query/sql", func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			SQL string `json:"sql"`
		}
		_ = json.NewDecoder(r.Body).Decode(&req)
		// The no-scatter steps: SELECT 1 and the multi-stage engine's detection.
		brokerOnly := req.SQL == prober.NoScatterSQL || req.SQL == prober.MultiStageSQL
		if brokerOnly {
			f.noScatter.Add(1)
		} else {
			f.probes.Add(1)
		}
		if !f.authorized(w, r) {
			return
		}
		f.mu.Lock()
		h := f.query
		f.mu.Unlock()
		if h != nil {
			h(w, r, req.SQL)
			return
		}
		if !brokerOnly {
			f.okAnswers.Add(1)
		}
		fmt.Fprint(w, fakepinot.OK(1))
	})
	f.srv = httptest.NewServer(mux)
	t.Cleanup(f.srv.Close)
	return f
}

// authorized answers Pinot's 401 unless the request carries the required value,
// and records every distinct value it was shown.
func (f *pinotFake) authorized(w http.ResponseWriter, r *http.Request) bool {
	got := r.Header.Get("Authorization")
	f.mu.Lock()
	need := f.auth
	if got != "" && (len(f.seen) == 0 || f.seen[len(f.seen)-1] != got) {
		f.seen = append(f.seen, got)
	}
	f.mu.Unlock()
	if need == "" || got == need {
		return true
	}
	f.unauthorized.Add(1)
	w.WriteHeader(http.StatusUnauthorized)
	fmt.Fprint(w, `{"code":401,"error":"HTTP 401 Unauthorized"}`)
	return false
}

func (f *pinotFake) setQuery(h func(w http.ResponseWriter, r *http.Request, sql string)) {
	f.mu.Lock()
	f.query = h
	f.mu.Unlock()
}

func fixed(status int, body string) func(http.ResponseWriter, *http.Request, string) {
	return func(w http.ResponseWriter, _ *http.Request, _ string) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		fmt.Fprint(w, body)
	}
}

// sidecar is one running `warmup-sidecar serve` process.
type sidecarProc struct {
	cmd     *exec.Cmd
	addr    string
	logs    *syncBuf
	started time.Time
	exited  chan error
	once    sync.Once
	err     error
}

// testDrain is how long a test sidecar keeps serving 503 after SIGTERM.
const testDrain = 500 * time.Millisecond

// startSidecar runs the binary with a clean WARMUP_* environment plus env, on a
// free loopback port, draining testDrain on SIGTERM. It is stopped (SIGTERM, then
// SIGKILL by PID) at cleanup.
func startSidecar(t *testing.T, env ...string) *sidecarProc {
	t.Helper()
	s := &sidecarProc{addr: freeAddr(t), logs: &syncBuf{}, exited: make(chan error, 1)}
	s.cmd = exec.Command(binary(t), "serve", "-drain="+testDrain.String())
	s.cmd.Env = cleanEnv(append([]string{"WARMUP_LISTEN_ADDR=" + s.addr, "WARMUP_LOG_LEVEL=debug"}, env...)...)
	s.cmd.Stderr = s.logs
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s.started = time.Now()
	go func() { s.exited <- s.cmd.Wait() }()
	t.Cleanup(func() {
		if err := s.stop(5 * time.Second); err != nil && !strings.Contains(err.Error(), "killed") {
			t.Logf("sidecar exit: %v", err)
		}
	})
	return s
}

// stop sends SIGTERM and waits up to d, then kills by PID.
func (s *sidecarProc) stop(d time.Duration) error {
	s.once.Do(func() {
		_ = s.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case s.err = <-s.exited:
		case <-time.After(d):
			_ = s.cmd.Process.Kill()
			s.err = fmt.Errorf("no exit %s after SIGTERM: killed (%v)", d, <-s.exited)
		}
	})
	return s.err
}

func (s *sidecarProc) url(path string) string { return "http://" + s.addr + path }

type statusDoc struct {
	Phase     string `json:"phase"`
	Ready     bool   `json:"ready"`
	Outcome   string `json:"outcome"`
	Run       int    `json:"run"`
	OK        int64  `json:"probes_succeeded"`
	Failed    int64  `json:"probes_failed"`
	LastError string `json:"last_error"`
}

func (s *sidecarProc) status(t *testing.T) (statusDoc, string) {
	t.Helper()
	code, body := httpGet(s.url("/status"))
	var st statusDoc
	if code == 200 {
		if err := json.Unmarshal([]byte(body), &st); err != nil {
			t.Fatalf("/status: %v: %s", err, body)
		}
	}
	return st, body
}

// metric reads one sample value from /metrics ("name{labels}" as exposed).
func (s *sidecarProc) metric(t *testing.T, series string) float64 {
	t.Helper()
	_, body := httpGet(s.url("/metrics"))
	for _, line := range strings.Split(body, "\n") {
		if v, ok := strings.CutPrefix(line, series+" "); ok {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				t.Fatalf("metric %s: %v", line, err)
			}
			return f
		}
	}
	t.Fatalf("series %s not in /metrics", series)
	return 0
}

func (s *sidecarProc) waitFor(t *testing.T, d time.Duration, what string, cond func() bool) time.Duration {
	t.Helper()
	for time.Since(s.started) < d {
		if cond() {
			return time.Since(s.started)
		}
		select {
		case err := <-s.exited:
			s.exited <- err
			t.Fatalf("sidecar exited (%v) while waiting for %s; logs:\n%s", err, what, s.logs.String())
		case <-time.After(10 * time.Millisecond):
		}
	}
	t.Fatalf("no %s within %s of start; logs:\n%s", what, d, tailStr(s.logs.String(), 4000))
	return 0
}

func tailStr(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

// binaryFault is one misbehaving broker seen through the real binary.
type binaryFault struct {
	name    string
	arrange func(f *pinotFake)
	env     []string
	outcome string
	warm    bool // the run reaches the floor
	maxSeen int64
}

func binaryFaults() []binaryFault {
	return []binaryFault{
		{name: "429 on every probe", outcome: "budget_expired", maxSeen: 60,
			arrange: func(f *pinotFake) {
				f.setQuery(fixed(200, fakepinot.Error(429, "TooManyRequestsError", "exceeds query quota for table: orders_OFFLINE")))
			}},
		{name: "502 HTML page", outcome: "budget_expired", maxSeen: 60,
			arrange: func(f *pinotFake) { f.setQuery(fixed(502, "<html><body><h1>502 Bad Gateway</h1></body></html>")) }},
		{name: "truncated JSON", outcome: "budget_expired", maxSeen: 60,
			arrange: func(f *pinotFake) { ok := fakepinot.OK(1); f.setQuery(fixed(200, ok[:40])) }},
		{name: "partial answers", outcome: "budget_expired", maxSeen: 60,
			arrange: func(f *pinotFake) { f.setQuery(fixed(200, fakepinot.Partial(2, 1))) }},
		{name: "queries never answered", outcome: "budget_expired", env: []string{"WARMUP_PROBE_TIMEOUT=1m"},
			arrange: func(f *pinotFake) {
				f.setQuery(func(_ http.ResponseWriter, r *http.Request, _ string) { <-r.Context().Done() })
			}},
		{name: "answers slower than the probe timeout", outcome: "budget_expired", env: []string{"WARMUP_PROBE_TIMEOUT=100ms"},
			arrange: func(f *pinotFake) {
				f.setQuery(func(w http.ResponseWriter, r *http.Request, _ string) {
					select {
					case <-time.After(300 * time.Millisecond):
						fmt.Fprint(w, fakepinot.OK(1))
					case <-r.Context().Done():
					}
				})
			}},
		{name: "controller down", outcome: "budget_expired",
			arrange: func(f *pinotFake) {
				f.mu.Lock()
				f.tables = func(w http.ResponseWriter) { w.WriteHeader(503) }
				f.mu.Unlock()
			}},
		{name: "routing changes between calls", outcome: "warm", warm: true, env: []string{"WARMUP_BUDGET=5s"},
			arrange: func(f *pinotFake) {
				f.mu.Lock()
				f.routing = func(w http.ResponseWriter, table string, call int64) {
					if call%2 == 1 {
						w.WriteHeader(404)
						fmt.Fprintf(w, `{"code":404,"error":"Cannot find routing for table: %s"}`, table)
						return
					}
					fmt.Fprintf(w, `{"%s_OFFLINE":{"Server_%d":["s0"]}}`, table, call%3)
				}
				f.mu.Unlock()
			}},
	}
}

// TestBinaryFaults drives the real binary against each fault, fail-open and
// fail-closed: /readyz opens within budget + 1s (fail-open) or stays 503
// (fail-closed); /status and /metrics give the outcome and probe counts the
// broker's answers justify; SIGTERM then stops it with exit 0.
func TestBinaryFaults(t *testing.T) {
	binary(t)
	var wg sync.WaitGroup
	sem := make(chan struct{}, 4)
	for _, c := range binaryFaults() {
		for _, failClosed := range []bool{false, true} {
			mode := "fail-open"
			if failClosed {
				mode = "fail-closed"
			}
			wg.Go(func() {
				sem <- struct{}{}
				defer func() { <-sem }()
				t.Run(c.name+"/"+mode, func(t *testing.T) { runBinaryFault(t, c, failClosed) })
			})
		}
	}
	wg.Wait()
}

func runBinaryFault(t *testing.T, c binaryFault, failClosed bool) {
	f := newPinotFake(t)
	c.arrange(f)
	budget := time.Second
	env := []string{"WARMUP_BROKER_URL=" + f.srv.URL, "WARMUP_CONTROLLER_URL=" + f.srv.URL, "WARMUP_BUDGET=1s",
		"WARMUP_MIN_ITERATIONS=50", "WARMUP_CONCURRENCY=4", "WARMUP_PROBE_TIMEOUT=2s", "WARMUP_FAIL_CLOSED=" + strconv.FormatBool(failClosed)}
	env = append(env, c.env...)
	for _, e := range c.env {
		if v, ok := strings.CutPrefix(e, "WARMUP_BUDGET="); ok {
			budget, _ = time.ParseDuration(v)
		}
	}
	s := startSidecar(t, env...)
	limit := budget + time.Second
	ready := func() bool { code, _ := httpGet(s.url("/readyz")); return code == 200 }

	if failClosed && !c.warm {
		s.waitFor(t, limit+3*time.Second, "a finished run", func() bool {
			return strings.Contains(s.logs.String(), `"msg":"warmup finished"`)
		})
		for time.Since(s.started) < limit+200*time.Millisecond {
			if ready() {
				t.Fatalf("fail-closed: /readyz 200 for an unwarm broker")
			}
			time.Sleep(20 * time.Millisecond)
		}
		if v := s.metric(t, "pinot_warmup_broker_warm"); v != 0 {
			t.Errorf("fail-closed: broker_warm = %v", v)
		}
		if v := s.metric(t, `pinot_warmup_runs_total{outcome="`+c.outcome+`"}`); v < 1 {
			t.Errorf("fail-closed: runs_total{%s} = %v", c.outcome, v)
		}
	} else {
		took := s.waitFor(t, limit+2*time.Second, "/readyz 200", ready)
		if took > limit {
			t.Errorf("/readyz 200 after %s, want within budget %s + 1s", took, budget)
		}
		st, body := s.status(t)
		if st.Outcome != c.outcome || st.Phase != "warm" || !st.Ready {
			t.Fatalf("/status %s", body)
		}
		if c.warm && st.OK < 50 {
			t.Errorf("warm with %d successes", st.OK)
		}
		if !c.warm && st.OK != 0 {
			t.Errorf("%d successes counted from a broker that answered none", st.OK)
		}
		// Every probe the broker saw is counted, but for the other 3 workers'
		// probes in flight when the run was warm (cut then, their answers never read).
		cut := int64(0)
		if c.warm {
			cut = 3
		}
		if seen := f.probes.Load(); st.OK+st.Failed < seen-cut || st.OK+st.Failed > seen+4 || st.OK > f.okAnswers.Load() {
			t.Errorf("/status %d ok + %d failed; the broker saw %d probes and answered %d successes", st.OK, st.Failed, seen, f.okAnswers.Load())
		}
		if c.maxSeen > 0 && f.probes.Load() > c.maxSeen {
			t.Errorf("broker hammered: %d probes in %s", f.probes.Load(), budget)
		}
		if m := s.metric(t, `pinot_warmup_probes_total{engine="single_stage",result="failure"}`); int64(m) != st.Failed {
			t.Errorf("metrics failures %v, /status %d", m, st.Failed)
		}
		if v := s.metric(t, `pinot_warmup_runs_total{outcome="`+c.outcome+`"}`); v != 1 {
			t.Errorf("runs_total{%s} = %v", c.outcome, v)
		}
	}
	if strings.Contains(s.logs.String(), "panic") {
		t.Errorf("panic in logs:\n%s", s.logs.String())
	}
	if err := s.stop(3 * time.Second); err != nil {
		t.Errorf("SIGTERM: %v; logs:\n%s", err, tailStr(s.logs.String(), 3000))
	}
}

// TestBinarySIGTERMWhenReadyDrains: SIGTERM on a ready sidecar (gate open, broker
// healthy) turns /readyz to 503 (stopping) at once and keeps it so for the drain, so a
// kubelet that read 200 reads a 503 and not a refused connection; then the listener
// closes and the process exits 0.
func TestBinarySIGTERMWhenReadyDrains(t *testing.T) {
	f := newPinotFake(t)
	s := startSidecar(t, "WARMUP_BROKER_URL="+f.srv.URL, "WARMUP_CONTROLLER_URL="+f.srv.URL, "WARMUP_BUDGET=1s",
		"WARMUP_MIN_ITERATIONS=20", "WARMUP_CONCURRENCY=2")
	s.waitFor(t, 5*time.Second, "/readyz 200", func() bool { code, _ := httpGet(s.url("/readyz")); return code == 200 })
	answers, closedAfter, _ := s.terminate(t, testDrain+5*time.Second)
	if closedAfter < testDrain-100*time.Millisecond || !slices.Equal(answers, []string{"stopping"}) {
		t.Errorf("listener closed %s after SIGTERM with /readyz answers %q; want 503 stopping for the drain (%s)",
			closedAfter, answers, testDrain)
	}
}

// terminate sends SIGTERM and reads /readyz until the listener closes (or within), then
// insists on exit 0 within that bound: the distinct 503 answers meanwhile, when the listener
// closed and when the process exited, after the signal. A 200 after the first 503 fails the
// test; one before it is the signal not yet handled.
func (s *sidecarProc) terminate(t *testing.T, within time.Duration) (answers []string, closedAfter, took time.Duration) {
	t.Helper()
	sent := time.Now()
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	for time.Since(sent) < within {
		code, body := httpGet(s.url("/readyz"))
		if code == 0 {
			closedAfter = time.Since(sent)
			break
		}
		if code == 200 && len(answers) > 0 {
			t.Fatalf("/readyz 200 after it answered %q", answers)
		}
		if body = strings.TrimSpace(body); code != 200 && (len(answers) == 0 || answers[len(answers)-1] != body) {
			answers = append(answers, body)
		}
		time.Sleep(2 * time.Millisecond)
	}
	select {
	case err := <-s.exited:
		s.exited <- err
		if err != nil {
			t.Fatalf("exit after SIGTERM: %v; logs:\n%s", err, tailStr(s.logs.String(), 3000))
		}
	case <-time.After(within):
		t.Fatalf("still running %s after SIGTERM; logs:\n%s", within, tailStr(s.logs.String(), 3000))
	}
	took = time.Since(sent)
	t.Logf("exit 0 %s after SIGTERM, listener closed after %s; /readyz answers meanwhile: %q",
		took.Round(time.Millisecond), closedAfter.Round(time.Millisecond), answers)
	return answers, closedAfter, took
}

// TestBinarySIGTERMMidWarmup: SIGTERM while probes hang in the broker (or while
// the sidecar still waits for the broker) stops the process with exit 0 at once:
// /readyz already answered 503, so there is nothing to drain (a drain there only
// held the pod's termination: a native sidecar is stopped after its broker has
// exited); from the signal on, /readyz never says 200.
func TestBinarySIGTERMMidWarmup(t *testing.T) {
	cases := []struct {
		name   string
		broker func(t *testing.T) (url string, inFlight func() bool)
	}{
		{"probes in flight, broker never answers", func(t *testing.T) (string, func() bool) {
			f := newPinotFake(t)
			var cancelled atomic.Int64
			f.setQuery(func(_ http.ResponseWriter, r *http.Request, _ string) { <-r.Context().Done(); cancelled.Add(1) })
			return f.srv.URL, func() bool { return f.probes.Load()+f.noScatter.Load() >= 1 }
		}},
		{"waiting, broker refuses connections", func(t *testing.T) (string, func() bool) {
			return "http://" + freeAddr(t), func() bool { return true }
		}},
		{"waiting, broker accepts and never answers", func(t *testing.T) (string, func() bool) {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			var held []net.Conn
			var mu sync.Mutex
			go func() {
				for {
					c, err := ln.Accept()
					if err != nil {
						return
					}
					mu.Lock()
					held = append(held, c)
					mu.Unlock()
				}
			}()
			t.Cleanup(func() {
				_ = ln.Close()
				mu.Lock()
				for _, c := range held {
					_ = c.Close()
				}
				mu.Unlock()
			})
			return "http://" + ln.Addr().String(), func() bool { mu.Lock(); defer mu.Unlock(); return len(held) > 0 }
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			url, inFlight := c.broker(t)
			s := startSidecar(t, "WARMUP_BROKER_URL="+url, "WARMUP_TABLES=orders", "WARMUP_BUDGET=1m",
				"WARMUP_PROBE_TIMEOUT=1m", "WARMUP_CONCURRENCY=16")
			s.waitFor(t, 5*time.Second, "the sidecar serving and the broker engaged", func() bool {
				code, _ := httpGet(s.url("/livez"))
				return code == 200 && inFlight()
			})
			time.Sleep(200 * time.Millisecond)
			if code, body := httpGet(s.url("/readyz")); code != 503 {
				t.Fatalf("/readyz before SIGTERM: %d %q", code, body)
			}
			answers, closedAfter, took := s.terminate(t, 5*time.Second)
			if took > 3*time.Second {
				t.Errorf("took %s to exit after SIGTERM, want ≤ 3s", took)
			}
			if !strings.Contains(s.logs.String(), `"msg":"stopping: /readyz already answered 503, no drain"`) ||
				strings.Contains(s.logs.String(), "until the listener closes") {
				t.Errorf("listener closed %s after SIGTERM with /readyz answers %q: want no drain (it answered 503 before); logs:\n%s",
					closedAfter, answers, tailStr(s.logs.String(), 2000))
			}
			if !strings.Contains(s.logs.String(), `"msg":"stopped"`) {
				t.Errorf("no stopped line; logs:\n%s", tailStr(s.logs.String(), 2000))
			}
			if strings.Contains(s.logs.String(), `"msg":"warmup finished"`) {
				t.Errorf("a stop was recorded as a run outcome")
			}
		})
	}
}
