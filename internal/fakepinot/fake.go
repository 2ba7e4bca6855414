// Package fakepinot is the project's one fake Pinot: an in-process broker +
// controller for tests, and (through scripts/fakebroker) for scripts. It speaks
// the JSON Pinot 1.3–1.5 really answers (docs/pinot-facts.md): /health with its
// status text, /debug/routingTable/{t} with typed keys and 404s, POST /query/sql
// with exceptions inside HTTP 200, /debug/tables/queryQuota/{t}, /start-time, and
// the controller's GET /tables and GET /tables/{t}/schema.
//
// By default it is a 1.5.1 cluster as operators run it: every listed table has a
// schema (DefaultSchema), SELECT * ... LIMIT n answers rows that follow it, and
// the multi-stage engine answers with stageStats. Each answer can be overridden
// to play a fault: a disabled or absent multi-stage engine (SetMultiStage), no
// schema or a silent controller, a failed sample.
package fakepinot

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/pkg/sqltext"
)

// Broker is a fake broker; its fields may be changed while it serves via Set.
type Broker struct {
	mu sync.Mutex
	// Status is what /health says: GOOD answers 200, anything else 503.
	status string
	// Routing is typed table → server → segments.
	routing map[string]map[string][]string
	// Answer, if set, decides the answer to a query (HTTP status and body).
	answer func(sql string) (int, string)
	// Delay is added before every query answer.
	delay time.Duration
	// RequireAuth, if set, is the only Authorization value accepted.
	requireAuth string
	// jvmDown makes the JVM metrics endpoint answer 404, jvmStall holds the
	// reads it picks (jvm.go).
	jvmDown  bool
	jvmStall func(read int64) bool
	jvmReads atomic.Int64
	// Overrides of the other endpoints' answers (overrides.go).
	healthAnswer  func() (int, string)
	routingAnswer func(table string) (int, string)
	quotaAnswer   func(typed string) (int, string)
	started       string
	startAnswer   func() (int, string)
	// fault breaks query answers below HTTP (faults.go).
	fault Fault
	// multiStage is how multi-stage queries are answered (engine.go).
	multiStage MultiStage
	// schemas (raw → the controller's JSON) shape sample rows, and sampleAnswer
	// overrides them (sample.go).
	schemas      map[string]string
	sampleAnswer func(typed string, n int) (int, string)

	queries  atomic.Int64
	inFlight atomic.Int64
	bySQL    sync.Map // sql → *atomic.Int64
	samples  atomic.Int64
	lastOpts atomic.Pointer[string]
	lastAuth atomic.Pointer[string]

	srv *httptest.Server
}

// NewBroker starts a fake broker that is GOOD, with the given routing, on a
// loopback test server.
func NewBroker(routing map[string]map[string][]string) *Broker {
	b := NewUnstartedBroker(routing)
	b.srv = httptest.NewServer(b.mux())
	return b
}

// URL of the broker.
func (b *Broker) URL() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.srv.URL
}

// Close stops the broker.
func (b *Broker) Close() {
	b.mu.Lock()
	srv := b.srv
	b.mu.Unlock()
	srv.CloseClientConnections()
	srv.Close()
}

// Down stops serving (connections are refused) until Up: a killed broker JVM.
func (b *Broker) Down() { b.Close() }

// Up serves again on the same address, as a restarted broker would.
func (b *Broker) Up() error {
	addr := strings.TrimPrefix(b.URL(), "http://")
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("re-listening on %s: %w", addr, err)
	}
	srv := httptest.NewUnstartedServer(b.mux())
	_ = srv.Listener.Close()
	srv.Listener = ln
	srv.Start()
	b.mu.Lock()
	b.srv = srv
	b.mu.Unlock()
	return nil
}

// SetStatus sets the ServiceStatus /health reports (GOOD → 200).
func (b *Broker) SetStatus(s string) { b.mu.Lock(); b.status = s; b.mu.Unlock() }

// SetAnswer overrides query answers.
func (b *Broker) SetAnswer(f func(sql string) (int, string)) {
	b.mu.Lock()
	b.answer = f
	b.mu.Unlock()
}

// SetDelay delays every query answer.
func (b *Broker) SetDelay(d time.Duration) { b.mu.Lock(); b.delay = d; b.mu.Unlock() }

// SetRouting replaces the routing.
func (b *Broker) SetRouting(r map[string]map[string][]string) {
	b.mu.Lock()
	b.routing = r
	b.mu.Unlock()
}

// RequireAuth makes every query and routing call need this Authorization value.
func (b *Broker) RequireAuth(v string) { b.mu.Lock(); b.requireAuth = v; b.mu.Unlock() }

// Queries is the number of queries answered.
func (b *Broker) Queries() int64 { return b.queries.Load() }

// QueriesOf counts queries with exactly this SQL.
func (b *Broker) QueriesOf(sql string) int64 {
	if v, ok := b.bySQL.Load(sql); ok {
		return v.(*atomic.Int64).Load()
	}
	return 0
}

// Samples counts the SELECT * ... LIMIT n queries with n > 1: the samples
// planning takes (the LIMIT 1 probe is a probe).
func (b *Broker) Samples() int64 { return b.samples.Load() }

func count(m *sync.Map, key string) {
	c, _ := m.LoadOrStore(key, new(atomic.Int64))
	c.(*atomic.Int64).Add(1)
}

// LastQueryOptions is the queryOptions string of the last query.
func (b *Broker) LastQueryOptions() string {
	if p := b.lastOpts.Load(); p != nil {
		return *p
	}
	return ""
}

// LastAuth is the Authorization header of the last query.
func (b *Broker) LastAuth() string {
	if p := b.lastAuth.Load(); p != nil {
		return *p
	}
	return ""
}

func (b *Broker) mux() *http.ServeMux {
	m := http.NewServeMux()
	m.HandleFunc("GET /health", b.health)
	m.HandleFunc("GET /debug/routingTable/{table}", b.routingTable)
	m.HandleFunc("POST /query/sql", b.query)
	m.HandleFunc("GET /debug/tables/queryQuota/{table}", b.queryQuota)
	m.HandleFunc("GET /start-time", b.startTime)
	m.HandleFunc("GET /metrics", b.jvmMetrics)
	return m
}

func (b *Broker) health(w http.ResponseWriter, _ *http.Request) {
	b.mu.Lock()
	st, override := b.status, b.healthAnswer
	b.mu.Unlock()
	if override != nil {
		write(w, override)
		return
	}
	if st == "GOOD" {
		fmt.Fprint(w, "OK")
		return
	}
	w.WriteHeader(http.StatusServiceUnavailable)
	fmt.Fprintf(w, "Pinot broker status is %s", st)
}

func (b *Broker) authorized(w http.ResponseWriter, r *http.Request) bool {
	b.mu.Lock()
	need := b.requireAuth
	b.mu.Unlock()
	if need == "" || r.Header.Get("Authorization") == need {
		return true
	}
	w.WriteHeader(http.StatusUnauthorized)
	fmt.Fprint(w, `{"code":401,"error":"HTTP 401 Unauthorized"}`)
	return false
}

func (b *Broker) routingTable(w http.ResponseWriter, r *http.Request) {
	if !b.authorized(w, r) {
		return
	}
	t := r.PathValue("table")
	b.mu.Lock()
	override := b.routingAnswer
	b.mu.Unlock()
	if override != nil {
		write(w, func() (int, string) { return override(t) })
		return
	}
	b.mu.Lock()
	out := map[string]map[string][]string{}
	for typed, servers := range b.routing {
		if typed == t || RawName(typed) == t {
			out[typed] = servers
		}
	}
	b.mu.Unlock()
	if len(out) == 0 {
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprintf(w, `{"code":404,"error":"Cannot find routing for table: %s"}`, t)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(out)
}

func (b *Broker) query(w http.ResponseWriter, r *http.Request) {
	if !b.authorized(w, r) {
		return
	}
	var req struct {
		SQL          string `json:"sql"`
		QueryOptions string `json:"queryOptions"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.SQL == "" {
		w.WriteHeader(http.StatusInternalServerError)
		fmt.Fprint(w, "Payload is missing the query string field 'sql'")
		return
	}
	b.queries.Add(1)
	b.inFlight.Add(1)
	defer b.inFlight.Add(-1)
	count(&b.bySQL, req.SQL)
	if _, n, ok := sampleOf(withoutSet(req.SQL)); ok && n > 1 {
		b.samples.Add(1)
	}
	b.lastOpts.Store(&req.QueryOptions)
	auth := r.Header.Get("Authorization")
	b.lastAuth.Store(&auth)
	b.mu.Lock()
	answer, delay, fault := b.answer, b.delay, b.fault
	b.mu.Unlock()
	if answer == nil {
		answer = func(sql string) (int, string) { return b.defaultAnswer(sql, req.QueryOptions) }
	}
	if delay > 0 {
		select {
		case <-time.After(delay):
		case <-r.Context().Done():
			return
		}
	}
	if fault != NoFault {
		fault.cut(w)
		return
	}
	status, body := answer(req.SQL)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	fmt.Fprint(w, body)
}

// defaultAnswer is a healthy 1.5.1 broker's: a literal query succeeds with no
// server; a query succeeds from the servers of the routed tables it names (at
// least one: a CTE's or subquery's alias is no table), SELECT * with rows of
// the table's schema; no routed table is Pinot's error 190. A multi-stage query
// is answered as SetMultiStage says.
func (b *Broker) defaultAnswer(sql, options string) (int, string) {
	b.mu.Lock()
	mode := b.multiStage
	b.mu.Unlock()
	multiStage := asksMultiStage(sql, options)
	if multiStage && mode == MultiStageDisabled {
		return 200, DisabledAnswer()
	}
	status, body := b.singleAnswer(sql)
	if multiStage && mode == MultiStageServed && status == 200 && !strings.Contains(body, `"exceptions":[{`) {
		body = withStageStats(body)
	}
	return status, body
}

// singleAnswer answers sql (its SET statements ignored) from the routing.
func (b *Broker) singleAnswer(sql string) (int, string) {
	tables := sqltext.Tables(sql)
	if len(tables) == 0 {
		return 200, OK(0)
	}
	b.mu.Lock()
	servers := 0
	for _, table := range tables {
		for typed, s := range b.routing {
			if typed == table || RawName(typed) == table {
				servers += len(s)
			}
		}
	}
	b.mu.Unlock()
	if servers == 0 {
		return 200, Error(190, "TableDoesNotExistError", "Unknown table: "+tables[0])
	}
	if typed, n, ok := sampleOf(withoutSet(sql)); ok {
		return b.rows(typed, n, servers)
	}
	return 200, OK(servers)
}

// withoutSet is sql after its leading SET statements.
func withoutSet(sql string) string {
	for {
		trimmed := strings.TrimSpace(sql)
		if len(trimmed) < 4 || !strings.EqualFold(trimmed[:4], "SET ") {
			return trimmed
		}
		_, rest, ok := strings.Cut(trimmed, ";")
		if !ok {
			return trimmed
		}
		sql = rest
	}
}

// OK is a successful answer from n servers, shaped like Pinot's.
func OK(n int) string {
	return fmt.Sprintf(`{"resultTable":{"dataSchema":{"columnNames":["a"],"columnDataTypes":["INT"]},"rows":[[1]]},`+
		`"numRowsResultSet":1,"partialResult":false,"exceptions":[],"numGroupsLimitReached":false,"timeUsedMs":3,`+
		`"requestId":"1234","brokerId":"Broker_127.0.0.1_8099","numDocsScanned":1,"totalDocs":100,`+
		`"numServersQueried":%d,"numServersResponded":%d,"numSegmentsQueried":%d,"numSegmentsProcessed":%d,"brokerReduceTimeMs":0}`, n, n, n, n)
}

// Partial is an answer where fewer servers responded than were queried.
func Partial(queried, responded int) string {
	return fmt.Sprintf(`{"resultTable":{"dataSchema":{"columnNames":["a"],"columnDataTypes":["INT"]},"rows":[]},`+
		`"exceptions":[],"numServersQueried":%d,"numServersResponded":%d,"timeUsedMs":7}`, queried, responded)
}

// Error is Pinot's error shape: HTTP 200 with exceptions.
func Error(code int, kind, msg string) string {
	m, _ := json.Marshal(kind + ":\n" + msg)
	return fmt.Sprintf(`{"exceptions":[{"errorCode":%d,"message":%s}],"numServersQueried":0,"numServersResponded":0,"timeUsedMs":1,"resultTable":null}`, code, m)
}

// RawName strips _OFFLINE/_REALTIME.
func RawName(typed string) string {
	for _, s := range []string{"_OFFLINE", "_REALTIME"} {
		if strings.HasSuffix(typed, s) {
			return strings.TrimSuffix(typed, s)
		}
	}
	return typed
}

// Controller is a fake controller serving GET /tables and each listed table's
// schema (schema.go).
type Controller struct {
	mu     sync.Mutex
	tables []string
	down   bool
	answer func() (int, string)
	// silent holds every request unanswered until the client gives up.
	silent bool
	// schemas (raw → JSON, "" for none) replace DefaultSchema; schemaAnswer
	// overrides them all.
	schemas        map[string]string
	schemaAnswer   func(raw string) (int, string)
	schemaRequests atomic.Int64
	srv            *httptest.Server
}

// NewController starts a fake controller listing tables (raw names) on a
// loopback test server.
func NewController(tables ...string) *Controller {
	c := NewUnstartedController(tables...)
	c.srv = httptest.NewServer(c.Handler())
	return c
}

func (c *Controller) listTables(w http.ResponseWriter, _ *http.Request) {
	c.mu.Lock()
	answer, down, ts := c.answer, c.down, append([]string(nil), c.tables...)
	c.mu.Unlock()
	switch {
	case answer != nil:
		write(w, answer)
	case down:
		w.WriteHeader(http.StatusServiceUnavailable)
	default:
		sort.Strings(ts)
		_ = json.NewEncoder(w).Encode(map[string][]string{"tables": ts})
	}
}

// URL of the controller.
func (c *Controller) URL() string { return c.srv.URL }

// Close stops the controller; requests it holds (SetSilent) end with their
// connections.
func (c *Controller) Close() {
	c.srv.CloseClientConnections()
	c.srv.Close()
}

// SetDown makes /tables answer 503.
func (c *Controller) SetDown(d bool) { c.mu.Lock(); c.down = d; c.mu.Unlock() }

// SetAnswer makes f decide each /tables answer (status and body), as a
// controller restarting or behind a proxy would; nil: list the tables again.
func (c *Controller) SetAnswer(f func() (int, string)) { c.mu.Lock(); c.answer = f; c.mu.Unlock() }

// SetTables replaces the table list.
func (c *Controller) SetTables(t ...string) { c.mu.Lock(); c.tables = t; c.mu.Unlock() }
