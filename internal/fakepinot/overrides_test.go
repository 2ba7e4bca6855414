package fakepinot

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func fetch(t *testing.T, method, url string) (int, string, error) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(`{"sql":"SELECT * FROM t_OFFLINE LIMIT 1"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), err
}

// Each endpoint answers as Pinot does by default, the override while one is set,
// and as Pinot does again once it is cleared.
func TestOverridesReplaceAndRestoreTheAnswers(t *testing.T) {
	b := NewBroker(map[string]map[string][]string{"t_OFFLINE": {"Server_1": {"s0"}}})
	defer b.Close()
	c := NewController("t")
	defer c.Close()
	fixed := func(code int, body string) func(string) (int, string) {
		return func(string) (int, string) { return code, body }
	}
	for _, tc := range []struct {
		name, url    string
		set, clear   func()
		before, with string
	}{
		{"health", b.URL() + "/health", func() { b.SetHealth(func() (int, string) { return 503, "Pinot broker status is SHUTTING_DOWN" }) },
			func() { b.SetHealth(nil) }, "200 OK", "503 Pinot broker status is SHUTTING_DOWN"},
		{"routing", b.URL() + "/debug/routingTable/t", func() { b.SetRoutingAnswer(fixed(200, `{"t_OFFLINE":["x"]}`)) },
			func() { b.SetRoutingAnswer(nil) }, `200 {"t_OFFLINE":{"Server_1":["s0"]}}` + "\n", `200 {"t_OFFLINE":["x"]}`},
		{"quota", b.URL() + "/debug/tables/queryQuota/t_OFFLINE", func() { b.SetQuotaAnswer(fixed(200, "8.0")) },
			func() { b.SetQuotaAnswer(nil) }, "404 404 page not found\n", "200 8.0"},
		{"start time", b.URL() + "/start-time", func() { b.SetStartTime("2026-12-01T10:00:00Z") },
			func() { b.SetStartTime("") }, "404 404 page not found\n", "200 2026-12-01T10:00:00Z"},
		{"start time answer", b.URL() + "/start-time", func() { b.SetStartTimeAnswer(func() (int, string) { return 500, "boom" }) },
			func() { b.SetStartTimeAnswer(nil) }, "404 404 page not found\n", "500 boom"},
		{"tables", c.URL() + "/tables", func() { c.SetAnswer(func() (int, string) { return 503, "<html>503</html>" }) },
			func() { c.SetAnswer(nil) }, `200 {"tables":["t"]}` + "\n", "503 <html>503</html>"},
	} {
		for _, step := range []struct {
			arrange func()
			want    string
		}{{func() {}, tc.before}, {tc.set, tc.with}, {tc.clear, tc.before}} {
			step.arrange()
			code, body, err := fetch(t, http.MethodGet, tc.url)
			if got := fmt.Sprintf("%d %s", code, body); err != nil || got != step.want {
				t.Errorf("%s: %q (%v), want %q", tc.name, got, err, step.want)
			}
		}
	}
}

// A query fault breaks the connection under the client, after the query is counted.
func TestQueryFaultsBreakTheConnection(t *testing.T) {
	b := NewBroker(map[string]map[string][]string{"t_OFFLINE": {"Server_1": {"s0"}}})
	defer b.Close()
	for i, f := range []Fault{ResetMidBody, CloseBeforeAnswer} {
		b.SetQueryFault(f)
		if code, body, err := fetch(t, http.MethodPost, b.URL()+"/query/sql"); err == nil {
			t.Errorf("fault %d: answered %d %q, want a broken connection", f, code, body)
		}
		if n := b.Queries(); n != int64(i+1) {
			t.Errorf("fault %d: %d queries counted, want %d", f, n, i+1)
		}
	}
	b.SetQueryFault(NoFault)
	if code, body, err := fetch(t, http.MethodPost, b.URL()+"/query/sql"); err != nil || code != 200 || !strings.Contains(body, `"numServersResponded":1`) {
		t.Errorf("no fault: %d %q %v, want a success from one server", code, body, err)
	}
}

// InFlight counts a query while the broker is still answering it.
func TestInFlightCountsQueriesBeingAnswered(t *testing.T) {
	b := NewBroker(map[string]map[string][]string{"t_OFFLINE": {"Server_1": {"s0"}}})
	defer b.Close()
	b.SetDelay(time.Hour)
	done := make(chan error, 1)
	go func() { _, _, err := fetch(t, http.MethodPost, b.URL()+"/query/sql"); done <- err }()
	deadline := time.Now().Add(5 * time.Second)
	for b.InFlight() != 1 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if n := b.InFlight(); n != 1 {
		t.Fatalf("in flight while held: %d, want 1", n)
	}
	b.Close() // the held query ends with its connection
	<-done
	if n := b.InFlight(); n != 0 {
		t.Errorf("in flight after the answer ended: %d, want 0", n)
	}
}

// An unstarted broker and controller serve through their handlers, as a program
// mounting them on one listener does.
func TestUnstartedFakesServeThroughTheirHandlers(t *testing.T) {
	b := NewUnstartedBroker(map[string]map[string][]string{"t_OFFLINE": {"Server_1": {"s0"}}})
	c := NewUnstartedController("t")
	mux := http.NewServeMux()
	mux.Handle("/", b.Handler())
	mux.Handle("GET /tables", c.Handler())
	srv := httptest.NewServer(mux)
	defer srv.Close()
	if code, body, err := fetch(t, http.MethodGet, srv.URL+"/tables"); err != nil || code != 200 || body != `{"tables":["t"]}`+"\n" {
		t.Errorf("/tables: %d %q %v", code, body, err)
	}
	if code, _, err := fetch(t, http.MethodPost, srv.URL+"/query/sql"); err != nil || code != 200 || b.Queries() != 1 {
		t.Errorf("query: %d %v, %d counted", code, err, b.Queries())
	}
}
