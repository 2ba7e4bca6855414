//go:build e2e

package cluster_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/e2e/cluster"
)

// These checks pin down what the shared pinot-facts.md claims about the broker against the real one, and
// (with WARMUP_E2E_RECORD=1) save the real bodies under e2e/testdata/broker-responses for the unit
// tests' fake brokers to replay. Where the real broker disagrees with the facts page, it wins: the
// assertions here describe the broker, the report describes the differences.

// exchange is one recorded request/response; index.json lists them all.
type exchange struct {
	Name           string            `json:"name"`
	Method         string            `json:"method"`
	URL            string            `json:"url"` // path on the broker or controller, host stripped
	RequestBody    string            `json:"requestBody,omitempty"`
	RequestHeaders map[string]string `json:"requestHeaders,omitempty"`
	Status         int               `json:"status"`
	ContentType    string            `json:"contentType,omitempty"`
	ErrorCodeHdr   string            `json:"xPinotErrorCode,omitempty"` // X-Pinot-Error-Code, if sent
	File           string            `json:"file"`
	body           []byte
}

type recorder struct {
	t     *testing.T
	dir   string
	on    bool
	index []exchange
}

// newRecorder keeps one folder per Pinot version: the unit tests replay every version's answers.
func newRecorder(t *testing.T, c *cluster.Cluster) *recorder {
	root, err := cluster.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, "e2e", "testdata", "broker-responses", "pinot-"+c.PinotVersion())
	return &recorder{t: t, dir: dir, on: os.Getenv("WARMUP_E2E_RECORD") == "1"}
}

// do sends one request, keeps it for index.json, and returns it.
func (r *recorder) do(name, method, base, path, body string, headers map[string]string) exchange {
	r.t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequestWithContext(r.t.Context(), method, base+path, rd)
	if err != nil {
		r.t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		r.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		r.t.Fatalf("%s %s: read: %v", method, path, err)
	}
	ext := ".txt"
	if strings.Contains(resp.Header.Get("Content-Type"), "json") {
		ext = ".json"
	}
	x := exchange{Name: name, Method: method, URL: path, RequestBody: body, RequestHeaders: headers,
		Status: resp.StatusCode, ContentType: resp.Header.Get("Content-Type"),
		ErrorCodeHdr: resp.Header.Get("X-Pinot-Error-Code"), File: name + ext, body: data}
	r.index = append(r.index, x)
	r.t.Logf("%s: %s %s → %d %s %.300s", name, method, path, x.Status, x.ContentType, data)
	return x
}

func (r *recorder) add(x exchange) { r.index = append(r.index, x) }

// flush writes every body and index.json when recording; otherwise it writes nothing.
func (r *recorder) flush(indexName string) {
	if !r.on {
		return
	}
	if err := os.MkdirAll(r.dir, 0o755); err != nil {
		r.t.Fatal(err)
	}
	for _, x := range r.index {
		if err := os.WriteFile(filepath.Join(r.dir, x.File), x.body, 0o644); err != nil {
			r.t.Fatal(err)
		}
	}
	idx, _ := json.MarshalIndent(r.index, "", "  ")
	if err := os.WriteFile(filepath.Join(r.dir, indexName), append(idx, '\n'), 0o644); err != nil {
		r.t.Fatal(err)
	}
}

func sqlBody(sql string) string {
	b, _ := json.Marshal(map[string]string{"sql": sql})
	return string(b)
}

// queryErrorCode returns the first exception's errorCode, or -1 when there is none.
func queryErrorCode(t *testing.T, x exchange) int {
	t.Helper()
	var r struct {
		Exceptions []struct {
			ErrorCode int `json:"errorCode"`
		} `json:"exceptions"`
	}
	if err := json.Unmarshal(x.body, &r); err != nil {
		t.Fatalf("%s: not JSON: %v: %.200s", x.Name, err, x.body)
	}
	if len(r.Exceptions) == 0 {
		return -1
	}
	return r.Exceptions[0].ErrorCode
}

func recordBrokerResponses(t *testing.T, c *cluster.Cluster) {
	r := newRecorder(t, c)
	b, ctl := c.BrokerURL(), c.ControllerURL()
	defer r.flush("index.json")

	if x := r.do("health-ok", "GET", b, "/health", "", nil); x.Status != 200 || string(x.body) != "OK" {
		t.Errorf("/health when GOOD = %d %q, want 200 OK", x.Status, x.body)
	}
	// Routing table: typed, raw and unknown names.
	typed := r.do("routing-typed", "GET", b, "/debug/routingTable/"+cluster.TableBoth+"_OFFLINE", "", nil)
	raw := r.do("routing-raw", "GET", b, "/debug/routingTable/"+cluster.TableBoth, "", nil)
	for _, x := range []exchange{typed, raw} {
		var rt map[string]map[string][]string
		if err := json.Unmarshal(x.body, &rt); x.Status != 200 || err != nil || len(rt[cluster.TableBoth+"_OFFLINE"]) != 2 {
			t.Errorf("%s: %d %s (%v), want {%s_OFFLINE:{2 servers}}", x.Name, x.Status, x.body, err, cluster.TableBoth)
		}
	}
	if x := r.do("routing-unknown", "GET", b, "/debug/routingTable/no_such_table", "", nil); x.Status != 404 {
		t.Errorf("routing table of unknown table: %d, want 404", x.Status)
	}
	r.do("timeboundary-offline-only", "GET", b, "/debug/timeBoundary/"+cluster.TableBoth, "", nil)
	quota := r.do("query-quota", "GET", b, "/debug/tables/queryQuota/"+cluster.TableBoth, "", nil)
	quotaTyped := r.do("query-quota-typed", "GET", b, "/debug/tables/queryQuota/"+cluster.TableBoth+"_OFFLINE", "", nil)
	r.do("uptime", "GET", b, "/uptime", "", nil)
	start := r.do("start-time", "GET", b, "/start-time", "", nil)
	if c.AtLeast1x() {
		// 1.x: the quota endpoint answers a typed name with this broker's share (0 without a quota),
		// and /start-time names the broker's start, so a changed value means a restart.
		if quotaTyped.Status != 200 {
			t.Errorf("1.x quota endpoint for a typed table: %d %s, want 200", quotaTyped.Status, quotaTyped.body)
		}
		if start.Status != 200 || len(start.body) == 0 {
			t.Errorf("1.x /start-time: %d %q, want 200 and a value", start.Status, start.body)
		}
	} else if quota.Status != 404 {
		t.Errorf("0.11 quota endpoint: %d, want 404", quota.Status)
	}

	// Queries: success, the default probe, no-scatter, and each compile error class.
	ok := r.do("query-count", "POST", b, "/query/sql", sqlBody(`SELECT COUNT(*) FROM "placement_both"`), nil)
	if code := queryErrorCode(t, ok); ok.Status != 200 || code != -1 {
		t.Errorf("count query: %d, error %d", ok.Status, code)
	}
	r.do("query-select-star-limit-1", "POST", b, "/query/sql", sqlBody(`SELECT * FROM "placement_s1" LIMIT 1`), nil)
	r.do("query-select-star-typed", "POST", b, "/query/sql", sqlBody(`SELECT * FROM "placement_s2_OFFLINE" LIMIT 1`), nil)
	noFrom := r.do("query-no-from", "POST", b, "/query/sql", sqlBody(`SELECT 1`), nil)
	var nf struct {
		Exceptions        []any `json:"exceptions"`
		NumServersQueried int   `json:"numServersQueried"`
	}
	if err := json.Unmarshal(noFrom.body, &nf); err != nil || noFrom.Status != 200 || len(nf.Exceptions) != 0 || nf.NumServersQueried != 0 {
		t.Errorf("SELECT 1 (no FROM) was not answered by the broker alone: %d %s", noFrom.Status, noFrom.body)
	}
	r.do("query-no-from-options", "POST", b, "/query/sql",
		`{"sql":"SELECT 1","queryOptions":"clientQueryId=warmup-probe-1;timeoutMs=1000"}`, nil)
	for _, q := range []struct {
		name, sql string
		code      int
	}{
		{"query-parse-error", `SELEC * FROM placement_s1`, 150},
		{"query-unknown-table", `SELECT * FROM no_such_table LIMIT 1`, 190},
		{"query-unknown-column", `SELECT no_such_column FROM placement_s1 LIMIT 1`, 710},
	} {
		x := r.do(q.name, "POST", b, "/query/sql", sqlBody(q.sql), nil)
		if code := queryErrorCode(t, x); x.Status != 200 || code != q.code {
			t.Errorf("%s: HTTP %d errorCode %d, want HTTP 200 errorCode %d", q.name, x.Status, code, q.code)
		}
	}
	// From 1.5.0 this header maps errors to HTTP statuses; older brokers ignore it.
	r.do("query-unknown-table-http-status-header", "POST", b, "/query/sql", sqlBody(`SELECT * FROM no_such_table LIMIT 1`),
		map[string]string{"Pinot-Use-Http-Status-For-Errors": "true"})
	if x := r.do("query-malformed-json", "POST", b, "/query/sql", `{"sql": `, nil); x.Status != 500 {
		t.Errorf("malformed JSON body: %d, want 500", x.Status)
	}
	if x := r.do("query-missing-sql", "POST", b, "/query/sql", `{"query":"SELECT 1"}`, nil); x.Status != 500 {
		t.Errorf("body without sql: %d, want 500", x.Status)
	}
	r.do("query-multistage-endpoint", "POST", b, "/query", sqlBody(`SELECT COUNT(*) FROM placement_both`), nil)
	if c.AtLeast1x() {
		recordMultiStage(t, r, b)
	}

	// Controller: the table list the sidecar plans from.
	tables := r.do("controller-tables", "GET", ctl, "/tables", "", nil)
	var tl struct {
		Tables []string `json:"tables"`
	}
	if err := json.Unmarshal(tables.body, &tl); err != nil || !slices.Contains(tl.Tables, cluster.TableBoth) {
		t.Errorf("controller /tables: %s (%v)", tables.body, err)
	}
	r.do("controller-tables-type-offline", "GET", ctl, "/tables?type=offline", "", nil)
	r.do("controller-brokers-tables", "GET", ctl, "/brokers/tables", "", nil)
	r.do("controller-instances", "GET", ctl, "/instances", "", nil)
	if x := r.do("controller-table-schema", "GET", ctl, "/tables/"+cluster.TableBoth+"/schema", "", nil); x.Status != 200 {
		t.Errorf("controller /tables/%s/schema: %d %s", cluster.TableBoth, x.Status, x.body)
	}
	r.do("controller-table-schema-unknown", "GET", ctl, "/tables/no_such_table/schema", "", nil)

	recordStartupPhase(t, c, r)
}

// recordStartupPhase restarts the broker and samples /health (and one query) every 20 ms until
// GOOD, recording each distinct answer: the not-yet-healthy bodies the sidecar must understand.
func recordStartupPhase(t *testing.T, c *cluster.Cluster, r *recorder) {
	start := time.Now()
	if err := c.RestartBroker(t.Context()); err != nil {
		t.Fatal(err)
	}
	type sample struct {
		AtMs   int64  `json:"atMs"`
		Status int    `json:"status"` // 0: connection refused
		Body   string `json:"body"`
	}
	var seen []sample
	queried := false
	for time.Since(start) < 3*time.Minute {
		status, body := 0, ""
		resp, err := http.Get(c.BrokerURL() + "/health")
		if err == nil {
			data, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			status, body = resp.StatusCode, string(data)
		}
		if len(seen) == 0 || seen[len(seen)-1].Status != status || seen[len(seen)-1].Body != body {
			seen = append(seen, sample{time.Since(start).Milliseconds(), status, body})
		}
		if status == 503 && !queried {
			queried = true
			r.do("health-not-ready", "GET", c.BrokerURL(), "/health", "", nil)
			r.do("query-while-starting", "POST", c.BrokerURL(), "/query/sql", sqlBody(`SELECT COUNT(*) FROM "placement_both"`), nil)
			r.do("routing-while-starting", "GET", c.BrokerURL(), "/debug/routingTable/placement_both", "", nil)
		}
		if status == 200 {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	data, _ := json.MarshalIndent(seen, "", "  ")
	r.add(exchange{Name: "health-transitions", Method: "GET", URL: "/health (sampled every 20ms after SIGKILL+start)", Status: 200, File: "health-transitions.json", body: append(data, '\n')})
	t.Logf("health transitions after restart: %s", data)
	if len(seen) == 0 || seen[len(seen)-1].Status != 200 {
		t.Fatalf("broker never became healthy: %s", data)
	}
	for _, s := range seen {
		if s.Status == 503 && !strings.HasPrefix(s.Body, "Pinot broker status is ") {
			t.Errorf("/health 503 body %q, want \"Pinot broker status is <STATUS>\"", s.Body)
		}
	}
}

// checkExtraListener: a second, loopback-only listener for probes must not change the broker's
// instance id. Variants: the facts page's literal config, and the one that works on this broker.
func checkExtraListener(t *testing.T, c *cluster.Cluster) {
	r := newRecorder(t, c)
	defer r.flush("index-listener.json")
	spare := c.Ports().BrokerSpare
	internal := []string{
		"pinot.broker.client.access.protocols.internal.host=127.0.0.1",
		fmt.Sprintf("pinot.broker.client.access.protocols.internal.port=%d", spare),
		"pinot.broker.client.access.protocols.internal.protocol=http",
	}
	type outcome struct {
		Conf       []string `json:"conf"`
		Healthy    bool     `json:"healthy"`
		Error      string   `json:"error,omitempty"`
		InstanceID []string `json:"brokerInstanceIds,omitempty"`
		SpareOK    bool     `json:"spareListenerAnswers"`
	}
	var outcomes []outcome
	for _, conf := range [][]string{
		append([]string{"pinot.broker.client.access.protocols=http,internal"}, internal...),
		append([]string{"pinot.broker.client.access.protocols=internal"}, internal...),
	} {
		o := outcome{Conf: conf}
		if err := c.RestartBroker(t.Context(), cluster.WithBrokerExtraConf(conf...)); err != nil {
			t.Fatal(err)
		}
		if err := c.WaitBrokerHealthy(t.Context()); err != nil {
			o.Error = firstException(t, c.LogPath("broker"))
		} else {
			o.Healthy = true
			o.InstanceID = brokerIDs(t, c)
			resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/health", spare))
			if err == nil {
				o.SpareOK = resp.StatusCode == 200
				resp.Body.Close()
			}
			x := r.do("listener-spare-query", "POST", fmt.Sprintf("http://127.0.0.1:%d", spare), "/query/sql", sqlBody(`SELECT COUNT(*) FROM "placement_s1"`), nil)
			if code := queryErrorCode(t, x); code != -1 {
				t.Errorf("query on the extra listener: error %d", code)
			}
			if !slices.Equal(o.InstanceID, []string{c.BrokerInstanceID()}) {
				t.Errorf("broker instance ids with %v = %v, want [%s]", conf, o.InstanceID, c.BrokerInstanceID())
			}
		}
		t.Logf("extra listener %v → %+v", conf, o)
		outcomes = append(outcomes, o)
	}
	if !outcomes[1].Healthy || !outcomes[1].SpareOK {
		t.Errorf("access.protocols=internal did not give a working extra listener: %+v", outcomes[1])
	}
	data, _ := json.MarshalIndent(outcomes, "", "  ")
	r.add(exchange{Name: "listener-outcomes", Method: "-", URL: "broker restarts with extra listener configs", File: "listener-outcomes.json", body: append(data, '\n')})
	restoreBroker(t, c)
}

// checkBasicAuth: the Basic access control config lines, and what an unauthenticated probe sees.
func checkBasicAuth(t *testing.T, c *cluster.Cluster) {
	r := newRecorder(t, c)
	defer r.flush("index-auth.json")
	conf := []string{
		"pinot.broker.access.control.class=org.apache.pinot.broker.broker.BasicAuthAccessControlFactory",
		"pinot.broker.access.control.principals=admin,probe",
		"pinot.broker.access.control.principals.admin.password=verysecret",
		"pinot.broker.access.control.principals.probe.password=probesecret",
		"pinot.broker.access.control.principals.probe.tables=" + cluster.TableServer1,
	}
	if err := c.RestartBroker(t.Context(), cluster.WithBrokerExtraConf(conf...)); err != nil {
		t.Fatal(err)
	}
	if err := c.WaitBrokerHealthy(t.Context()); err != nil {
		t.Fatal(err)
	}
	b := c.BrokerURL()
	admin := map[string]string{"Authorization": "Basic YWRtaW46dmVyeXNlY3JldA=="} // admin:verysecret
	probe := map[string]string{"Authorization": "Basic cHJvYmU6cHJvYmVzZWNyZXQ="} // probe:probesecret
	wrong := map[string]string{"Authorization": "Basic YWRtaW46d3Jvbmc="}         // admin:wrong
	count := sqlBody(`SELECT COUNT(*) FROM "placement_both"`)
	r.do("auth-health-no-credentials", "GET", b, "/health", "", nil)
	r.do("auth-routing-no-credentials", "GET", b, "/debug/routingTable/placement_both", "", nil)
	none := r.do("auth-query-no-credentials", "POST", b, "/query/sql", count, nil)
	bad := r.do("auth-query-wrong-password", "POST", b, "/query/sql", count, wrong)
	good := r.do("auth-query-ok", "POST", b, "/query/sql", count, admin)
	r.do("auth-query-no-from-no-credentials", "POST", b, "/query/sql", sqlBody("SELECT 1"), nil)
	other := r.do("auth-query-table-not-allowed", "POST", b, "/query/sql", count, probe)
	allowed := r.do("auth-query-table-allowed", "POST", b, "/query/sql", sqlBody(`SELECT COUNT(*) FROM "placement_s1"`), probe)
	if code := queryErrorCode(t, good); good.Status != 200 || code != -1 {
		t.Errorf("query with valid Basic credentials: %d, error %d", good.Status, code)
	}
	if code := queryErrorCode(t, allowed); code != -1 {
		t.Errorf("probe principal on its own table: error %d", code)
	}
	for _, x := range []exchange{none, bad, other} {
		if x.Status == 200 && queryErrorCode(t, x) == -1 {
			t.Errorf("%s was answered: %.200s", x.Name, x.body)
		}
	}
	if c.AtLeast1x() {
		// 1.x refuses at the HTTP layer (0.11: HTTP 200 with error 180).
		for _, x := range []exchange{none, bad} {
			if x.Status != 401 {
				t.Errorf("1.x %s: HTTP %d, want 401", x.Name, x.Status)
			}
		}
		if other.Status != 403 {
			t.Errorf("1.x %s: HTTP %d, want 403", other.Name, other.Status)
		}
	}
	restoreBroker(t, c)
}

func restoreBroker(t *testing.T, c *cluster.Cluster) {
	if err := c.RestartBroker(t.Context(), cluster.WithBrokerExtraConf()); err != nil {
		t.Fatal(err)
	}
	if err := c.WaitBrokerHealthy(t.Context()); err != nil {
		t.Fatal(err)
	}
}

// brokerIDs lists the broker instances the controller knows.
func brokerIDs(t *testing.T, c *cluster.Cluster) []string {
	ids, err := c.BrokerInstances(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return ids
}

// firstException is the first exception line the broker logged since its last (re)start: the
// reason it refused a config.
func firstException(t *testing.T, logPath string) string {
	data, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	log := string(data)
	if i := strings.LastIndex(log, "\n=== "); i >= 0 {
		log = log[i:]
	}
	for _, line := range strings.Split(log, "\n") {
		if strings.Contains(line, "Exception: ") {
			return strings.TrimSpace(line)
		}
	}
	return "(no exception logged)"
}

// recordMultiStage: what the multi-stage engine answers on 1.x, by query option and by SET, and
// a join (only that engine plans one).
func recordMultiStage(t *testing.T, r *recorder, b string) {
	count := `SELECT COUNT(*) FROM "placement_both"`
	byOption := r.do("query-mse-option", "POST", b, "/query/sql",
		`{"sql":"SELECT COUNT(*) FROM \"placement_both\"","queryOptions":"useMultistageEngine=true"}`, nil)
	bySet := r.do("query-mse-set", "POST", b, "/query/sql", sqlBody("SET useMultistageEngine=true; "+count), nil)
	join := r.do("query-mse-join", "POST", b, "/query/sql", sqlBody(`SET useMultistageEngine=true; `+
		`SELECT a.id, COUNT(*) FROM "placement_s1" a JOIN "placement_s2" b ON a.id = b.id GROUP BY a.id LIMIT 5`), nil)
	for _, x := range []exchange{byOption, bySet, join} {
		if code := queryErrorCode(t, x); x.Status != 200 || code != -1 {
			t.Errorf("%s: HTTP %d error %d: %.300s", x.Name, x.Status, code, x.body)
		}
	}
	r.do("query-mse-join-sse", "POST", b, "/query/sql",
		sqlBody(`SELECT a.id FROM "placement_s1" a JOIN "placement_s2" b ON a.id = b.id LIMIT 5`), nil)
	r.do("query-mse-parse-error", "POST", b, "/query/sql", sqlBody("SET useMultistageEngine=true; SELEC 1"), nil)
	r.do("query-mse-unknown-column", "POST", b, "/query/sql",
		sqlBody(`SET useMultistageEngine=true; SELECT no_such_column FROM "placement_s1" LIMIT 1`), nil)
}
