package supervisor

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"github.com/warmup-sidecar/warmup-sidecar/internal/report"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	"go.uber.org/goleak"

	"github.com/warmup-sidecar/warmup-sidecar/internal/fakepinot"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/gatehttp"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/pinot"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/prober"
)

// faultBroker is the fake broker and controller a fault case runs against
// (internal/fakepinot), routing table t to one server. Its default answer is a
// success counted in okAnswers, so the sidecar's counts can be checked against
// what the broker really answered; an answer a case installs counts its own.
type faultBroker struct {
	broker    *fakepinot.Broker
	ctrl      *fakepinot.Controller
	okAnswers atomic.Int64
}

func newFaultBroker(t *testing.T) *faultBroker {
	t.Helper()
	fb := &faultBroker{
		broker: fakepinot.NewBroker(map[string]map[string][]string{"t_OFFLINE": {"Server_1": {"s0"}}}),
		ctrl:   fakepinot.NewController("t"),
	}
	fb.broker.SetAnswer(fb.succeed)
	// The cases are about the probes' answers, in budgets under a few seconds:
	// an old broker and a controller without schemas keep the plan to one LIMIT 1
	// probe. The default plan is default_mode_test.go's.
	fb.broker.SetMultiStage(fakepinot.MultiStageAbsent)
	fb.ctrl.SetSchemaAnswer(fakepinot.SchemaNotFound)
	t.Cleanup(fb.close)
	return fb
}

// succeed answers a success, counted unless it answers the no-scatter step.
func (fb *faultBroker) succeed(sql string) (int, string) {
	if sql != prober.NoScatterSQL && sql != prober.MultiStageSQL { // the no-scatter steps
		fb.okAnswers.Add(1)
	}
	return 200, fakepinot.OK(1)
}

// probes is how many floor probes reached the broker (the no-scatter steps
// and the planning's samples apart).
func (fb *faultBroker) probes() int64 {
	return fb.broker.Queries() - fb.broker.QueriesOf(prober.NoScatterSQL) - fb.broker.QueriesOf(prober.MultiStageSQL) -
		fb.broker.Samples()
}

func (fb *faultBroker) close() {
	fb.broker.Close()
	fb.ctrl.Close()
}

// answer answers every query the same way (the no-scatter step too).
func answer(status int, body string) func(string) (int, string) {
	return func(string) (int, string) { return status, body }
}

// faultSup is a Supervisor over a broker URL with its own HTTP client, so the test
// can drop its idle connections and prove nothing is left running.
type faultSup struct {
	sup    *Supervisor
	m      *report.Metrics
	gm     *gatehttp.Metrics
	logs   *syncBuffer
	hc     *http.Client
	start  time.Time
	cancel context.CancelFunc
	done   chan error
}

func newFaultSup(t *testing.T, brokerURL, controllerURL string, opts Options, broker func(*pinot.Client) Broker) *faultSup {
	t.Helper()
	m, gm := newMetrics(t)
	hc := pinot.DefaultHTTPClient()
	client := pinot.New(pinot.Options{BrokerURL: brokerURL, ControllerURL: controllerURL, HTTPClient: hc})
	var b Broker = client
	if broker != nil {
		b = broker(client)
	}
	logs := &syncBuffer{}
	fs := &faultSup{m: m, gm: gm, logs: logs, hc: hc}
	fs.sup = &Supervisor{
		Opts:    opts,
		Broker:  b,
		Gate:    gatehttp.NewGate(gm),
		Board:   report.NewStatusBoard(opts.Enabled, opts.Settings.MinIterations, opts.Budget, time.Now),
		Health:  &gatehttp.BrokerHealth{Check: HealthCheck(client.Health), MaxAge: time.Second, Timeout: 300 * time.Millisecond, Now: time.Now},
		Metrics: m,
		Log:     slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		// Fast loops: the faults are about the warmup, not the health cadence.
		PollEvery: 50 * time.Millisecond, WaitMax: 100 * time.Millisecond, ProgressEvery: 200 * time.Millisecond,
		HealthTimeout: 300 * time.Millisecond,
	}
	return fs
}

func (fs *faultSup) run(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	fs.cancel, fs.done, fs.start = cancel, make(chan error, 1), time.Now()
	go func() { fs.done <- fs.sup.Run(ctx) }()
	t.Cleanup(func() { fs.stop(t) })
}

// stop cancels the supervisor and insists it returns promptly: a supervisor stuck
// in a probe or a health check would hold the pod's shutdown.
func (fs *faultSup) stop(t *testing.T) {
	t.Helper()
	if fs.cancel == nil {
		return
	}
	fs.cancel()
	select {
	case err := <-fs.done:
		if err != nil {
			t.Errorf("supervisor returned %v on stop", err)
		}
	case <-time.After(3 * time.Second):
		t.Errorf("supervisor still running 3s after cancel")
	}
	fs.cancel = nil
	fs.hc.CloseIdleConnections()
}

func (fs *faultSup) runs() (total float64, by map[prober.Outcome]float64) {
	by = map[prober.Outcome]float64{}
	for _, o := range []prober.Outcome{prober.OutcomeWarm, prober.OutcomeBudgetExpired, prober.OutcomeFailed} {
		by[o] = testutil.ToFloat64(fs.m.Runs.WithLabelValues(string(o)))
		total += by[o]
	}
	return total, by
}

// probesTotal sums the result's probes over both engines.
func (fs *faultSup) probesTotal(result string) int64 {
	n := 0.0
	for _, e := range []string{report.EngineSingleStage, report.EngineMultiStage} {
		n += testutil.ToFloat64(fs.m.Probes.WithLabelValues(result, e))
	}
	return int64(n)
}

// faultCase is one way a broker can misbehave, and what the sidecar must make of it.
type faultCase struct {
	name string
	// url, if set, replaces the fake broker (for faults below HTTP).
	url func(t *testing.T) string
	// hooks arrange the fakes' behaviour.
	hooks func(fb *faultBroker)
	// settings adjusts the run's knobs (defaults: floor 50, concurrency 2, probe
	// timeout 300ms, no no-scatter step, plan from the controller).
	settings func(s *prober.Settings)
	broker   func(*pinot.Client) Broker
	// controllerDown points the controller URL at a closed port.
	controllerDown bool
	// neverHealthy: /health never answers 200, so the budget never starts and
	// the gate must stay closed in any mode.
	neverHealthy bool
	// healthWhy must appear in /readyz's reason while /health never answers 200.
	healthWhy string
	outcome   prober.Outcome
	// minOK: successes at least (warm runs); 0 with outcome != warm means none at all.
	minOK int64
	// maxProbes caps floor probes the fake may see (backoff must hold a failing
	// broker off); 0: no cap.
	maxProbes int64
	// lastErr must appear in the run's error texts: /status's last_error or a
	// logged probe failure (under load a probe timeout can come last).
	lastErr string
	// budget of the run; 0: faultBudget. Runs that must reach the floor get room
	// for a loaded CI machine.
	budget time.Duration
}

const faultBudget = 700 * time.Millisecond

func faultCases() []faultCase {
	// Accepts, reads, never answers: the answer waits until the client gives up.
	never := func(fb *faultBroker) { fb.broker.SetDelay(time.Hour) }
	return []faultCase{
		{
			name:         "broker refuses connections",
			url:          closedURL,
			neverHealthy: true,
			healthWhy:    "broker unreachable: ",
		},
		{
			// It is reachable, only silent: the watch counts it as slow (no
			// evidence it is gone), and /readyz says the same, not "unreachable".
			name:         "broker accepts and never answers anything",
			url:          blackholeURL,
			neverHealthy: true,
			healthWhy:    "broker /health did not answer in time: ",
		},
		{
			name:     "health answers, queries never answered (probe timeout beyond budget)",
			hooks:    never,
			settings: func(s *prober.Settings) { s.ProbeTimeout = 10 * time.Second },
			outcome:  prober.OutcomeBudgetExpired, lastErr: "probe timed out",
		},
		{
			name:     "no-scatter step hangs too",
			hooks:    never,
			settings: func(s *prober.Settings) { s.ProbeTimeout = 10 * time.Second; s.NoScatterProbes = 100 },
			outcome:  prober.OutcomeBudgetExpired,
		},
		{
			name:     "answers slower than the probe timeout",
			hooks:    func(fb *faultBroker) { fb.broker.SetDelay(400 * time.Millisecond) },
			settings: func(s *prober.Settings) { s.ProbeTimeout = 100 * time.Millisecond },
			outcome:  prober.OutcomeBudgetExpired, lastErr: "probe timed out",
		},
		{
			name: "HTTP 500 with Pinot's text",
			hooks: func(fb *faultBroker) {
				fb.broker.SetAnswer(answer(500, "Payload is missing the query string field 'sql'"))
			},
			outcome: prober.OutcomeBudgetExpired, lastErr: "HTTP 500", maxProbes: 20,
		},
		{
			name: "HTTP 502 HTML error page",
			hooks: func(fb *faultBroker) {
				fb.broker.SetAnswer(answer(502, "<html>\n<head><title>502 Bad Gateway</title></head>\n<body><center><h1>502 Bad Gateway</h1></center><hr><center>nginx</center></body>\n</html>"))
			},
			outcome: prober.OutcomeBudgetExpired, lastErr: "HTTP 502: <html> <head><title>502 Bad Gateway", maxProbes: 20,
		},
		{
			name: "HTTP 200 with an HTML page",
			hooks: func(fb *faultBroker) {
				fb.broker.SetAnswer(answer(200, "<html><body>Service Unavailable</body></html>"))
			},
			outcome: prober.OutcomeBudgetExpired, lastErr: "unparsable broker answer", maxProbes: 20,
		},
		{
			name:    "truncated JSON",
			hooks:   func(fb *faultBroker) { ok := fakepinot.OK(1); fb.broker.SetAnswer(answer(200, ok[:len(ok)/2])) },
			outcome: prober.OutcomeBudgetExpired, lastErr: "unparsable broker answer", maxProbes: 20,
		},
		{
			name:    "JSON null",
			hooks:   func(fb *faultBroker) { fb.broker.SetAnswer(answer(200, "null")) },
			outcome: prober.OutcomeBudgetExpired, lastErr: "unparsable broker answer", maxProbes: 20,
		},
		{
			name:    "body cut by a connection reset",
			hooks:   func(fb *faultBroker) { fb.broker.SetQueryFault(fakepinot.ResetMidBody) },
			outcome: prober.OutcomeBudgetExpired, maxProbes: 20,
		},
		{
			name:    "connection closed before any answer",
			hooks:   func(fb *faultBroker) { fb.broker.SetQueryFault(fakepinot.CloseBeforeAnswer) },
			outcome: prober.OutcomeBudgetExpired, maxProbes: 20,
		},
		{
			name: "200 with exceptions (servers not responding, 427)",
			hooks: func(fb *faultBroker) {
				fb.broker.SetAnswer(answer(200, fakepinot.Error(427, "ServerNotRespondingError", "1 servers [Server_1] not responded")))
			},
			outcome: prober.OutcomeBudgetExpired, lastErr: "error 427", maxProbes: 20,
		},
		{
			name: "200 with exceptions (no routing yet, 410)",
			hooks: func(fb *faultBroker) {
				fb.broker.SetAnswer(answer(200, fakepinot.Error(410, "BrokerResourceMissingError", "No table matches")))
			},
			outcome: prober.OutcomeBudgetExpired, lastErr: "error 410", maxProbes: 20,
		},
		{
			name:    "partial answers (2 of 3 servers)",
			hooks:   func(fb *faultBroker) { fb.broker.SetAnswer(answer(200, fakepinot.Partial(3, 2))) },
			outcome: prober.OutcomeBudgetExpired, lastErr: "partial answer: 2 of 3", maxProbes: 20,
		},
		{
			name: "partialResult flag with equal server counts",
			hooks: func(fb *faultBroker) {
				fb.broker.SetAnswer(answer(200, `{"exceptions":[],"numServersQueried":2,"numServersResponded":2,"partialResult":true,"resultTable":{"rows":[]}}`))
			},
			outcome: prober.OutcomeBudgetExpired, lastErr: "partial answer", maxProbes: 20,
		},
		{
			name: "429 quota exceeded on every probe (Pinot's 200 + errorCode)",
			hooks: func(fb *faultBroker) {
				fb.broker.SetAnswer(answer(200, fakepinot.Error(429, "TooManyRequestsError", "Request 7: exceeds query quota for table: t_OFFLINE")))
			},
			outcome: prober.OutcomeBudgetExpired, lastErr: "error 429", maxProbes: 20,
		},
		{
			name: "429 as HTTP status (1.5 opt-in header mode)",
			hooks: func(fb *faultBroker) {
				fb.broker.SetAnswer(answer(429, `{"errorCode":429,"message":"QuotaExceededError: exceeds query quota"}`))
			},
			outcome: prober.OutcomeBudgetExpired, lastErr: "HTTP 429", maxProbes: 20,
		},
		{
			name: "401 on every probe",
			hooks: func(fb *faultBroker) {
				fb.broker.SetAnswer(answer(401, `{"code":401,"error":"HTTP 401 Unauthorized"}`))
			},
			outcome: prober.OutcomeBudgetExpired, lastErr: "HTTP 401", maxProbes: 20,
		},
		{
			name: "every other probe fails",
			hooks: func(fb *faultBroker) {
				// Every other probe of each query: one count over all of them would
				// fail the same shapes of every round. (With 23 shapes half failing,
				// the run's backoff leaves ~40 probes in 3 s: issue 24, part A's.)
				var mu sync.Mutex
				n := map[string]int{}
				fb.broker.SetAnswer(func(sql string) (int, string) {
					mu.Lock()
					n[sql]++
					odd := n[sql]%2 == 0
					mu.Unlock()
					if odd {
						return 200, fakepinot.Error(427, "ServerNotRespondingError", "x")
					}
					return fb.succeed(sql)
				})
			},
			outcome: prober.OutcomeWarm, minOK: 50, budget: 3 * time.Second,
		},
		{
			name: "routing table changes between calls",
			hooks: func(fb *faultBroker) {
				fb.ctrl.SetTables("a", "b", "c")
				// Each call answers differently: 404 (not built yet), no segments,
				// another replica group, a table gone.
				var calls atomic.Int64
				fb.broker.SetRoutingAnswer(func(table string) (int, string) {
					switch call := calls.Add(1); call % 4 {
					case 0:
						return 404, fmt.Sprintf(`{"code":404,"error":"Cannot find routing for table: %s"}`, table)
					case 1:
						return 200, fmt.Sprintf(`{"%s_OFFLINE":{}}`, table)
					case 2:
						return 200, fmt.Sprintf(`{"%s_OFFLINE":{"Server_%d":["s0"]},"%s_REALTIME":{"Server_9":["s1"]}}`, table, call%3, table)
					default:
						return 200, fmt.Sprintf(`{"%s_OFFLINE":{"Server_%d":["s0"]}}`, table, call%5)
					}
				})
			},
			outcome: prober.OutcomeWarm, minOK: 50, budget: 3 * time.Second,
		},
		{
			name: "routing table answers garbage",
			hooks: func(fb *faultBroker) {
				fb.broker.SetRoutingAnswer(answer(200, `{"t_OFFLINE":["not","a","map"]}`))
			},
			outcome: prober.OutcomeBudgetExpired, lastErr: "decoding routing table",
		},
		{
			name: "tables vanish after planning (queries answer 190)",
			hooks: func(fb *faultBroker) {
				fb.broker.SetAnswer(answer(200, fakepinot.Error(190, "TableDoesNotExistError", "Unknown table: t_OFFLINE")))
			},
			outcome: prober.OutcomeBudgetExpired, lastErr: "error 190", maxProbes: 20,
		},
		{
			name: "controller down while the broker is up",
			hooks: func(fb *faultBroker) {
				fb.ctrl.SetAnswer(func() (int, string) { return 503, "<html>503</html>" })
			},
			outcome: prober.OutcomeBudgetExpired, lastErr: "listing tables from controller",
		},
		{
			name:           "controller unreachable while the broker is up",
			controllerDown: true,
			outcome:        prober.OutcomeBudgetExpired, lastErr: "listing tables from controller",
		},
		{
			name: "controller answers non-JSON",
			hooks: func(fb *faultBroker) {
				fb.ctrl.SetAnswer(func() (int, string) { return 200, "tables: a, b" })
			},
			outcome: prober.OutcomeBudgetExpired, lastErr: "decoding controller table list",
		},
		{
			name: "custom queries all rejected by the broker (150)",
			hooks: func(fb *faultBroker) {
				fb.broker.SetAnswer(answer(200, fakepinot.Error(150, "SQLParsingError", "Encountered \"SELEC\"")))
			},
			settings: func(s *prober.Settings) { s.Queries = []string{"SELEC 1 FROM t"} },
			outcome:  prober.OutcomeFailed,
		},
		{
			name: "quota endpoint answers an HTML error (pacing off, run unaffected)",
			hooks: func(fb *faultBroker) {
				fb.broker.SetQuotaAnswer(answer(500, "<html/>"))
			},
			outcome: prober.OutcomeWarm, minOK: 50, budget: 3 * time.Second,
		},
		{
			name:    "a probe panics inside the sidecar",
			broker:  func(c *pinot.Client) Broker { return panicky{c} },
			outcome: prober.OutcomeFailed, lastErr: "panicked",
		},
	}
}

// panicky is a broker client whose probes panic: a bug anywhere in the probe path.
type panicky struct{ *pinot.Client }

func (panicky) Query(context.Context, pinot.Query) pinot.Result { panic("probe path bug") }

func closedURL(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + ln.Addr().String()
	_ = ln.Close()
	return url
}

// blackholeURL accepts TCP connections and never reads or answers.
func blackholeURL(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		_ = ln.Close()
		<-done
		mu.Lock()
		for _, c := range conns {
			_ = c.Close()
		}
		mu.Unlock()
	})
	return "http://" + ln.Addr().String()
}

// TestFaults runs every broker fault against a real Supervisor, fail-open and
// fail-closed. Fail-open: the gate opens within budget + 1s with the right outcome
// and probe counts. Fail-closed: it stays closed. Always: no panic escapes, the
// supervisor stops on cancel, and no goroutine is left behind.
func TestFaults(t *testing.T) {
	opt := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, opt) }) // after every subtest and cleanup
	// The cases mostly wait on budgets and timeouts, so several run at once: t.Run
	// from several goroutines is allowed, and is not throttled by -parallel. More
	// than a few at once on a small CI machine under -race would turn every fault
	// into "probe timed out".
	var wg sync.WaitGroup
	sem := make(chan struct{}, 8)
	for _, c := range faultCases() {
		for _, failClosed := range []bool{false, true} {
			if c.neverHealthy && failClosed {
				continue // nothing to open or keep closed: the budget never starts
			}
			mode := "fail-open"
			if failClosed {
				mode = "fail-closed"
			}
			wg.Go(func() {
				sem <- struct{}{}
				defer func() { <-sem }()
				t.Run(c.name+"/"+mode, func(t *testing.T) { runFault(t, c, failClosed) })
			})
		}
	}
	wg.Wait()
}

func runFault(t *testing.T, c faultCase, failClosed bool) {
	var fb *faultBroker
	brokerURL, controllerURL := "", ""
	if c.url != nil {
		brokerURL = c.url(t)
		controllerURL = brokerURL
	} else {
		fb = newFaultBroker(t)
		if c.hooks != nil {
			c.hooks(fb)
		}
		brokerURL, controllerURL = fb.broker.URL(), fb.ctrl.URL()
		if c.controllerDown {
			controllerURL = closedURL(t)
		}
	}
	s := prober.Settings{MinIterations: 50, Concurrency: 2, MaxTables: 5, ProbeTimeout: time.Second}
	if c.settings != nil {
		c.settings(&s)
	}
	budget := cmp.Or(c.budget, faultBudget)
	fs := newFaultSup(t, brokerURL, controllerURL, Options{Enabled: true, Budget: budget, FailClosed: failClosed, Rearm: true, Settings: s}, c.broker)
	fs.run(t)
	limit := budget + time.Second

	if c.neverHealthy {
		time.Sleep(limit)
		total, _ := fs.runs()
		st := fs.sup.Board.Snapshot(fs.sup.Gate)
		if fs.sup.Gate.IsOpen() || st.Phase != gatehttp.PhaseWaiting || total != 0 {
			t.Fatalf("broker never healthy: open=%v phase=%s runs=%v; want closed, waiting, no run (the budget starts when the broker is healthy)",
				fs.sup.Gate.IsOpen(), st.Phase, total)
		}
		ok, why := fs.sup.Health.Get(context.Background())
		if ok || !strings.HasPrefix(why, c.healthWhy) {
			t.Errorf("readiness reason %q, want %q...", why, c.healthWhy)
		}
		return
	}

	// Watch the gate until the first run has an outcome (and, fail-closed, until
	// budget + 1s has passed without it opening).
	var openedAt time.Duration
	for {
		el := time.Since(fs.start)
		if fs.sup.Gate.IsOpen() && openedAt == 0 {
			openedAt = el
		}
		total, _ := fs.runs()
		if total >= 1 && (!failClosed || el > limit || openedAt > 0) {
			break
		}
		if el > limit+2*time.Second {
			t.Fatalf("no run outcome %s after start; logs:\n%s", el, fs.logs.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
	_, by := fs.runs()
	if by[c.outcome] < 1 {
		t.Fatalf("runs = %v, want outcome %s; logs:\n%s", by, c.outcome, tail(fs.logs.String(), 3000))
	}
	// Counts as of the first run's end, from its "warmup finished" log line.
	succeeded, failed := finishedCounts(t, fs.logs.String, failClosed && c.outcome == prober.OutcomeWarm)
	st := fs.sup.Board.Snapshot(fs.sup.Gate)

	switch {
	case failClosed && c.outcome != prober.OutcomeWarm:
		if openedAt > 0 {
			t.Fatalf("fail-closed gate opened at %s for an unwarm broker (outcome %s)", openedAt, c.outcome)
		}
		if v := testutil.ToFloat64(fs.gm.Warm); v != 0 {
			t.Fatalf("broker_warm = %v under fail-closed, want 0", v)
		}
	default:
		if openedAt == 0 {
			waitFor(t, limit, "gate open", fs.sup.Gate.IsOpen)
			openedAt = time.Since(fs.start)
		}
		if openedAt > limit {
			t.Fatalf("gate opened %s after start, want within budget (%s) + 1s", openedAt, budget)
		}
		if st.Outcome != string(c.outcome) {
			t.Errorf("/status outcome %q, want %q", st.Outcome, c.outcome)
		}
		// /status and the counters agree with the log of the run that opened the gate.
		if total, _ := fs.runs(); total == 1 {
			if st.ProbesSucceeded != succeeded || st.ProbesFailed != failed ||
				fs.probesTotal(report.ResultSuccess) != succeeded || fs.probesTotal(report.ResultFailure) != failed {
				t.Errorf("counts disagree: log %d/%d, /status %d/%d, metrics %d/%d", succeeded, failed,
					st.ProbesSucceeded, st.ProbesFailed, fs.probesTotal(report.ResultSuccess), fs.probesTotal(report.ResultFailure))
			}
		}
	}
	if c.lastErr != "" && !strings.Contains(st.LastError, c.lastErr) && !strings.Contains(fs.logs.String(), c.lastErr) {
		t.Errorf("neither /status last_error %q nor the logs contain %q", st.LastError, c.lastErr)
	}

	if c.outcome == prober.OutcomeWarm {
		if succeeded < c.minOK {
			t.Errorf("warm with %d successes, want ≥ %d", succeeded, c.minOK)
		}
	} else if succeeded != 0 && c.outcome != prober.OutcomeFailed {
		t.Errorf("%d successes counted from a broker that never answered one", succeeded)
	}
	if fb != nil && c.broker == nil {
		// Every probe the broker saw was counted, but for the other workers'
		// probes in flight when the run had its outcome (cut then, their answers
		// never read), plus at most one round the deadline cut before it reached
		// the broker; a success only for a real success.
		seen := fb.probes()
		if !failClosed {
			cut := int64(0)
			if c.outcome == prober.OutcomeWarm {
				cut = int64(s.Concurrency - 1)
			}
			if sent := succeeded + failed; sent < seen-cut || sent > seen+int64(s.Concurrency) {
				t.Errorf("sidecar counted %d probes (%d ok, %d failed); broker saw %d", sent, succeeded, failed, seen)
			}
			if succeeded > fb.okAnswers.Load() {
				t.Errorf("%d successes counted, broker answered %d successes", succeeded, fb.okAnswers.Load())
			}
		}
		if c.maxProbes > 0 && !failClosed && seen > c.maxProbes {
			t.Errorf("a failing broker got %d probes in %s: backoff is not holding off", seen, faultBudget)
		}
	}
	if panicked := strings.Contains(fs.logs.String(), "warmup panicked"); panicked != (c.broker != nil) {
		t.Errorf("panic logged: %v; logs:\n%s", panicked, tail(fs.logs.String(), 2000))
	}
}

// finishedCounts reads probes_succeeded/probes_failed of the first (or last)
// "warmup finished" log line.
func finishedCounts(t *testing.T, logs func() string, last bool) (int64, int64) {
	t.Helper()
	// The runs counter moves just before the line is written.
	deadline := time.Now().Add(time.Second)
	for !strings.Contains(logs(), `"msg":"warmup finished"`) && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	var ok, failed int64
	found := false
	for _, line := range strings.Split(logs(), "\n") {
		if !strings.Contains(line, `"msg":"warmup finished"`) {
			continue
		}
		var rec struct {
			OK     int64 `json:"probes_succeeded"`
			Failed int64 `json:"probes_failed"`
		}
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		ok, failed, found = rec.OK, rec.Failed, true
		if !last {
			break
		}
	}
	if found {
		return ok, failed
	}
	t.Fatalf("no warmup finished line in logs:\n%s", logs())
	return 0, 0
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

// TestFaultBrokerRestartedMidWarmup: the fake broker dies mid-warmup and comes back
// on the same address. The cut run ends failed without opening the gate; the
// broker's return starts a fresh run that warms and opens it.
func TestFaultBrokerRestartedMidWarmup(t *testing.T) {
	opt := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, opt) })
	for _, failClosed := range []bool{false, true} {
		b := fakepinot.NewBroker(fakepinot.ThreeServers())
		c := fakepinot.NewController(fakepinot.ThreeServerTables()...)
		b.SetDelay(5 * time.Millisecond)
		fs := newFaultSup(t, b.URL(), c.URL(), Options{Enabled: true, Budget: 5 * time.Second, FailClosed: failClosed, Rearm: true,
			Settings: prober.Settings{MinIterations: 150, Concurrency: 2, MaxTables: 5, ProbeTimeout: time.Second}}, nil)
		fs.run(t)
		waitFor(t, 2*time.Second, "warming", func() bool { return fs.probesTotal("success") > 10 })
		b.Down()
		waitFor(t, 2*time.Second, "cut run", func() bool { _, by := fs.runs(); return by[prober.OutcomeFailed] == 1 })
		if fs.sup.Gate.IsOpen() {
			t.Fatal("gate open after the broker died mid-warmup")
		}
		if err := b.Up(); err != nil {
			t.Fatal(err)
		}
		waitFor(t, 6*time.Second, "warm after restart", fs.sup.Gate.IsOpen)
		if _, by := fs.runs(); by[prober.OutcomeWarm] != 1 || by[prober.OutcomeFailed] != 1 {
			t.Errorf("failClosed=%v: runs %v, want one failed then one warm", failClosed, by)
		}
		if st := fs.sup.Board.Snapshot(fs.sup.Gate); st.Run != 2 || st.ProbesSucceeded < 150 {
			t.Errorf("failClosed=%v: second run %d with %d successes", failClosed, st.Run, st.ProbesSucceeded)
		}
		fs.stop(t)
		b.Close()
		c.Close()
	}
}

// TestFaultFailClosedWarmsOnceTheFaultClears: fail-closed keeps warming while the
// broker answers 429, and opens as soon as a run reaches the floor.
func TestFaultFailClosedWarmsOnceTheFaultClears(t *testing.T) {
	opt := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, opt) })
	fb := newFaultBroker(t)
	fb.broker.SetAnswer(answer(200, fakepinot.Error(429, "TooManyRequestsError", "quota")))
	fs := newFaultSup(t, fb.broker.URL(), fb.ctrl.URL(), Options{Enabled: true, Budget: 400 * time.Millisecond, FailClosed: true, Rearm: true,
		Settings: prober.Settings{MinIterations: 20, Concurrency: 2, MaxTables: 5, ProbeTimeout: time.Second}}, nil)
	fs.run(t)
	waitFor(t, 3*time.Second, "two expired runs", func() bool { _, by := fs.runs(); return by[prober.OutcomeBudgetExpired] >= 2 })
	if fs.sup.Gate.IsOpen() {
		t.Fatal("fail-closed gate open while every probe is a 429")
	}
	fb.broker.SetAnswer(fb.succeed)
	waitFor(t, 3*time.Second, "gate open once probes succeed", fs.sup.Gate.IsOpen)
	fs.stop(t)
	fb.close()
}

var _ io.Writer = (*syncBuffer)(nil)

// TestFaultSlowHealthIsNotAGoneBroker: a broker whose /health answers slower than
// the check's timeout now and then (a JVM GC pause, a loaded 2-vCPU broker) has not
// gone away. One slow answer must neither cut a warmup nor withdraw readiness from
// a warm broker; only refused connections, or GoneAfter bad polls in a row, do.
func TestFaultSlowHealthIsNotAGoneBroker(t *testing.T) {
	opt := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, opt) })
	fb := newFaultBroker(t)
	var stall atomic.Bool
	var polls atomic.Int64
	fb.broker.SetHealth(func() (int, string) {
		polls.Add(1)
		if stall.CompareAndSwap(true, false) {
			time.Sleep(400 * time.Millisecond) // past the 300ms HealthTimeout
		}
		return 200, "OK"
	})
	fb.broker.SetDelay(2 * time.Millisecond)
	fs := newFaultSup(t, fb.broker.URL(), fb.ctrl.URL(), Options{Enabled: true, Budget: 5 * time.Second, Rearm: true,
		Settings: prober.Settings{MinIterations: 200, Concurrency: 2, MaxTables: 5, ProbeTimeout: time.Second}}, nil)
	fs.run(t)
	waitFor(t, 2*time.Second, "warming", func() bool { return fs.probesTotal("success") > 5 })
	stall.Store(true) // one slow /health while warming
	waitFor(t, 6*time.Second, "warm", fs.sup.Gate.IsOpen)
	stall.Store(true) // and one once warm
	waitFor(t, 3*time.Second, "the slow /health", func() bool { return !stall.Load() })
	after := polls.Load()
	waitFor(t, 3*time.Second, "two polls after it", func() bool { return polls.Load() >= after+2 })
	if _, by := fs.runs(); by[prober.OutcomeWarm] != 1 || by[prober.OutcomeFailed] != 0 {
		t.Fatalf("runs %v: one slow /health was taken for a broker restart", by)
	}
	if !fs.sup.Gate.IsOpen() {
		t.Fatal("readiness withdrawn after one slow /health")
	}
	fs.stop(t)
	fb.close()
}

// TestFaultControllerDownWithListedTables: WARMUP_TABLES names the tables, so the
// controller is only needed to judge coverage. A controller that is down while the
// broker is up should not keep the listed tables from being warmed.
func TestFaultControllerDownWithListedTables(t *testing.T) {
	opt := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, opt) })
	fb := newFaultBroker(t)
	fb.ctrl.SetAnswer(func() (int, string) { return 503, "controller restarting" })
	fs := newFaultSup(t, fb.broker.URL(), fb.ctrl.URL(), Options{Enabled: true, Budget: 2 * time.Second, Rearm: true,
		Settings: prober.Settings{MinIterations: 20, Concurrency: 2, MaxTables: 5, ProbeTimeout: time.Second, Tables: []string{"t"}}}, nil)
	fs.run(t)
	waitFor(t, 3*time.Second, "gate open", fs.sup.Gate.IsOpen)
	_, by := fs.runs()
	fs.stop(t)
	fb.close()
	if by[prober.OutcomeWarm] != 1 {
		t.Fatalf("with WARMUP_TABLES set and the controller answering 503, the run did not warm on the listed "+
			"tables (runs %v, %d probes sent)", by, fb.probes())
	}
}
