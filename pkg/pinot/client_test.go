package pinot

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/internal/fakepinot"
)

func newBroker(t *testing.T) *fakepinot.Broker {
	t.Helper()
	b := fakepinot.NewBroker(fakepinot.ThreeServers())
	t.Cleanup(b.Close)
	return b
}

func newClient(t *testing.T, o Options) *Client {
	t.Helper()
	// A client of its own, so no idle connection outlives the test.
	hc := DefaultHTTPClient()
	t.Cleanup(hc.CloseIdleConnections)
	o.HTTPClient = hc
	return New(o)
}

// closedURL is an address nothing listens on.
func closedURL(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return "http://" + addr
}

// answer serves one fixed status and body on every path.
func answer(t *testing.T, status int, body string) string {
	t.Helper()
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(status)
		fmt.Fprint(w, body)
	}))
	t.Cleanup(s.Close)
	return s.URL
}

func TestHealth(t *testing.T) {
	b := newBroker(t)
	c := newClient(t, Options{BrokerURL: b.URL()})
	ctx := context.Background()

	h, err := c.Health(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if want := (Health{OK: true, Status: 200, Body: "OK"}); h != want {
		t.Errorf("GOOD broker: %+v, want %+v", h, want)
	}

	for _, st := range []string{"NOT_STARTED", "STARTING", "SHUTTING_DOWN"} {
		b.SetStatus(st)
		h, err = c.Health(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if want := (Health{OK: false, Status: 503, Body: "Pinot broker status is " + st}); h != want {
			t.Errorf("%s broker: %+v, want %+v", st, h, want)
		}
		if got, want := h.ShuttingDown(), st == "SHUTTING_DOWN"; got != want {
			t.Errorf("%s broker: ShuttingDown() = %v, want %v", st, got, want)
		}
	}
}

func TestHealthConnectionRefusedIsAnError(t *testing.T) {
	c := newClient(t, Options{BrokerURL: closedURL(t)})
	h, err := c.Health(context.Background())
	if err == nil {
		t.Fatalf("no error for a refused connection, got %+v", h)
	}
	if !strings.HasPrefix(err.Error(), "checking broker health: ") {
		t.Errorf("error %q does not say what was being done", err)
	}
	// The supervisor tells a broker that is gone from a slow one by this.
	if !errors.Is(err, syscall.ECONNREFUSED) {
		t.Errorf("error %q does not unwrap to ECONNREFUSED", err)
	}
	if h.OK {
		t.Error("refused connection reported OK")
	}
}

// A /health slower than the caller's deadline is an error, but not a refused
// connection: the broker is there, only slow.
func TestHealthTimeoutIsNotRefused(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)
	c := newClient(t, Options{BrokerURL: srv.URL})
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err := c.Health(ctx)
	if err == nil || errors.Is(err, syscall.ECONNREFUSED) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("slow /health: error %v; want a deadline error that is not ECONNREFUSED", err)
	}
}

func TestRoutingTable(t *testing.T) {
	b := newBroker(t)
	c := newClient(t, Options{BrokerURL: b.URL()})
	cases := []struct {
		table string
		want  RoutingTable
	}{
		{"orders_OFFLINE", RoutingTable{"orders_OFFLINE": {"Server_10.0.0.1_8098": {"orders_0"}}}},
		{"orders", RoutingTable{"orders_OFFLINE": {"Server_10.0.0.1_8098": {"orders_0"}}}},
		{"clicks", RoutingTable{"clicks_REALTIME": {"Server_10.0.0.2_8098": {"clicks__0__0"}}}},
		{"events_REALTIME", RoutingTable{"events_REALTIME": {"Server_10.0.0.2_8098": {"events__0__0"}}}},
		{"events", RoutingTable{
			"events_OFFLINE":  {"Server_10.0.0.3_8098": {"events_0"}},
			"events_REALTIME": {"Server_10.0.0.2_8098": {"events__0__0"}},
		}},
		{"empty", RoutingTable{"empty_OFFLINE": {}}},
	}
	for _, tc := range cases {
		t.Run(tc.table, func(t *testing.T) {
			got, err := c.RoutingTable(context.Background(), tc.table)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

func TestRoutingTableErrors(t *testing.T) {
	ctx := context.Background()

	t.Run("404 is ErrNoRouting", func(t *testing.T) {
		c := newClient(t, Options{BrokerURL: newBroker(t).URL()})
		_, err := c.RoutingTable(ctx, "other")
		if !errors.Is(err, ErrNoRouting) {
			t.Fatalf("error %v, want ErrNoRouting", err)
		}
		if !strings.Contains(err.Error(), `"other"`) {
			t.Errorf("error %q does not name the table", err)
		}
	})
	for _, status := range []int{401, 403} {
		t.Run(fmt.Sprintf("%d is UnauthorizedError", status), func(t *testing.T) {
			c := newClient(t, Options{BrokerURL: answer(t, status, `{"code":401}`)})
			_, err := c.RoutingTable(ctx, "orders")
			var ue *UnauthorizedError
			if !errors.As(err, &ue) || ue.Status != status {
				t.Fatalf("error %v, want UnauthorizedError with status %d", err, status)
			}
			if errors.Is(err, ErrNoRouting) {
				t.Error("an auth failure must not look like missing routing")
			}
		})
	}
	t.Run("auth required and missing", func(t *testing.T) {
		b := newBroker(t)
		b.RequireAuth("Basic right")
		c := newClient(t, Options{BrokerURL: b.URL()})
		_, err := c.RoutingTable(ctx, "orders")
		var ue *UnauthorizedError
		if !errors.As(err, &ue) || ue.Status != 401 {
			t.Fatalf("error %v, want a 401 UnauthorizedError", err)
		}
	})
	t.Run("500 is an error with the body", func(t *testing.T) {
		c := newClient(t, Options{BrokerURL: answer(t, 500, "boom\n")})
		_, err := c.RoutingTable(ctx, "orders")
		if err == nil || err.Error() != `getting routing table of "orders" from broker: HTTP 500: boom` {
			t.Fatalf("error %v", err)
		}
	})
	t.Run("garbage JSON", func(t *testing.T) {
		c := newClient(t, Options{BrokerURL: answer(t, 200, `{"orders_OFFLINE":`)})
		if _, err := c.RoutingTable(ctx, "orders"); err == nil || !strings.HasPrefix(err.Error(), `decoding routing table of "orders" from broker`) {
			t.Fatalf("error %v", err)
		}
	})
	t.Run("connection refused", func(t *testing.T) {
		c := newClient(t, Options{BrokerURL: closedURL(t)})
		if _, err := c.RoutingTable(ctx, "orders"); err == nil || errors.Is(err, ErrNoRouting) {
			t.Fatalf("error %v, want a transport error", err)
		}
	})
	t.Run("the table name is escaped into one path segment", func(t *testing.T) {
		var path string
		s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			path = r.URL.EscapedPath()
			fmt.Fprint(w, `{}`)
		}))
		t.Cleanup(s.Close)
		c := newClient(t, Options{BrokerURL: s.URL + "/"})
		if _, err := c.RoutingTable(ctx, "a/b c"); err != nil {
			t.Fatal(err)
		}
		if want := "/debug/routingTable/a%2Fb%20c"; path != want {
			t.Errorf("path %q, want %q", path, want)
		}
	})
}

func TestTables(t *testing.T) {
	ctx := context.Background()
	t.Run("from the fake controller", func(t *testing.T) {
		ctl := fakepinot.NewController(fakepinot.ThreeServerTables()...)
		t.Cleanup(ctl.Close)
		c := newClient(t, Options{BrokerURL: closedURL(t), ControllerURL: ctl.URL()})
		got, err := c.Tables(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if want := []string{"clicks", "empty", "events", "orders", "other"}; !reflect.DeepEqual(got, want) {
			t.Errorf("got %q, want %q", got, want)
		}
	})
	t.Run("sorted even when the controller is not", func(t *testing.T) {
		c := newClient(t, Options{ControllerURL: answer(t, 200, `{"tables":["zeta","alpha","mid"]}`)})
		got, err := c.Tables(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if want := []string{"alpha", "mid", "zeta"}; !reflect.DeepEqual(got, want) {
			t.Errorf("got %q, want %q", got, want)
		}
	})
	t.Run("controller 503 is an error", func(t *testing.T) {
		ctl := fakepinot.NewController("a")
		t.Cleanup(ctl.Close)
		ctl.SetDown(true)
		c := newClient(t, Options{ControllerURL: ctl.URL()})
		_, err := c.Tables(ctx)
		if err == nil || err.Error() != "listing tables from controller: HTTP 503: (empty body)" {
			t.Fatalf("error %v", err)
		}
	})
	t.Run("controller 403", func(t *testing.T) {
		c := newClient(t, Options{ControllerURL: answer(t, 403, "")})
		var ue *UnauthorizedError
		if _, err := c.Tables(ctx); !errors.As(err, &ue) {
			t.Fatalf("error %v, want UnauthorizedError", err)
		}
	})
	t.Run("no controller", func(t *testing.T) {
		c := newClient(t, Options{BrokerURL: "http://127.0.0.1:8099"})
		if _, err := c.Tables(ctx); !errors.Is(err, ErrNoController) {
			t.Fatalf("error %v, want ErrNoController", err)
		}
	})
}

func TestQuerySendsOptions(t *testing.T) {
	cases := []struct {
		name string
		q    Query
		want string
	}{
		{"timeout and id", Query{SQL: "SELECT 1", Timeout: 1500 * time.Millisecond, ClientQueryID: ProbeIDPrefix + "run1-7"}, "timeoutMs=1500;clientQueryId=warmup-sidecar-run1-7"},
		{"sub-millisecond timeout rounds up to 1 ms", Query{SQL: "SELECT 1", Timeout: 300 * time.Microsecond}, "timeoutMs=1"},
		{"id only", Query{SQL: "SELECT 1", ClientQueryID: "x"}, "clientQueryId=x"},
		{"neither", Query{SQL: "SELECT 1"}, ""},
		{"multi-stage", Query{SQL: "SELECT 1", ClientQueryID: "x", MultiStage: true}, "clientQueryId=x;useMultistageEngine=true"},
		{"multi-stage alone", Query{SQL: "SELECT 1", MultiStage: true}, "useMultistageEngine=true"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b := newBroker(t)
			c := newClient(t, Options{BrokerURL: b.URL()})
			r := c.Query(context.Background(), tc.q)
			if r.Class != Success {
				t.Fatalf("class %v: %s", r.Class, r.Message)
			}
			if got := b.LastQueryOptions(); got != tc.want {
				t.Errorf("queryOptions = %q, want %q", got, tc.want)
			}
			if b.QueriesOf(tc.q.SQL) != 1 {
				t.Errorf("broker saw %d queries of %q", b.QueriesOf(tc.q.SQL), tc.q.SQL)
			}
		})
	}
}

func TestQueryClassifiesBrokerAnswers(t *testing.T) {
	b := newBroker(t)
	c := newClient(t, Options{BrokerURL: b.URL()})
	ctx := context.Background()

	if r := c.Query(ctx, Query{SQL: `SELECT * FROM "events_OFFLINE" LIMIT 1`}); r.Class != Success || r.ServersQueried != 1 {
		t.Errorf("known table: %+v", r)
	}
	if r := c.Query(ctx, Query{SQL: `SELECT * FROM "nope" LIMIT 1`}); r.Class != BadQuery || r.ErrorCode != 190 {
		t.Errorf("unknown table: %+v", r)
	}
	b.SetAnswer(func(string) (int, string) { return 200, fakepinot.Partial(2, 1) })
	if r := c.Query(ctx, Query{SQL: "SELECT 1"}); r.Class != Transient {
		t.Errorf("partial: %+v", r)
	}
	b.SetAnswer(func(string) (int, string) { return 200, errorBody(410, "BrokerResourceMissingError") })
	if r := c.Query(ctx, Query{SQL: "SELECT 1"}); r.Class != Transient || r.ErrorCode != 410 {
		t.Errorf("410: %+v", r)
	}
}

func TestQueryTransportFailures(t *testing.T) {
	t.Run("connection refused", func(t *testing.T) {
		c := newClient(t, Options{BrokerURL: closedURL(t)})
		r := c.Query(context.Background(), Query{SQL: "SELECT 1"})
		if r.Class != Transient || r.HTTPStatus != 0 || r.Message == "" {
			t.Errorf("got %+v", r)
		}
	})
	t.Run("timeout", func(t *testing.T) {
		b := newBroker(t)
		b.SetDelay(5 * time.Second)
		c := newClient(t, Options{BrokerURL: b.URL()})
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		defer cancel()
		start := time.Now()
		r := c.Query(ctx, Query{SQL: "SELECT 1"})
		if r.Class != Transient || r.Message != "probe timed out" {
			t.Errorf("got %+v", r)
		}
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("the probe outlived its context by %v", d)
		}
	})
	t.Run("cancelled", func(t *testing.T) {
		b := newBroker(t)
		c := newClient(t, Options{BrokerURL: b.URL()})
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if r := c.Query(ctx, Query{SQL: "SELECT 1"}); r.Class != Transient || r.Message != "probe cancelled" {
			t.Errorf("got %+v", r)
		}
	})
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestQuerySendsAuthorizationFromFile(t *testing.T) {
	b := newBroker(t)
	b.RequireAuth("Basic YWRtaW46dmVyeXNlY3JldA==")
	path := filepath.Join(t.TempDir(), "auth")
	writeFile(t, path, "Basic YWRtaW46dmVyeXNlY3JldA==\n")
	auth, err := NewFileAuth(path)
	if err != nil {
		t.Fatal(err)
	}
	c := newClient(t, Options{BrokerURL: b.URL(), Auth: auth})
	ctx := context.Background()
	if r := c.Query(ctx, Query{SQL: "SELECT 1"}); r.Class != Success {
		t.Fatalf("query with auth: %+v", r)
	}
	if got := b.LastAuth(); got != "Basic YWRtaW46dmVyeXNlY3JldA==" {
		t.Errorf("Authorization = %q", got)
	}
	if _, err := c.RoutingTable(ctx, "orders"); err != nil {
		t.Errorf("routing table with auth: %v", err)
	}
	// A rejected credential is Unauthorized, not a bad query.
	writeFile(t, path, "Basic d3Jvbmc6d3Jvbmc=")
	if r := c.Query(ctx, Query{SQL: "SELECT 1"}); r.Class != Unauthorized || r.HTTPStatus != 401 {
		t.Errorf("wrong credential: %+v", r)
	}
	// The file goes away: the probe cannot be authorised, and says which file.
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	r := c.Query(ctx, Query{SQL: "SELECT 1"})
	if r.Class != Unauthorized || !strings.Contains(r.Message, path) {
		t.Errorf("missing file: %+v", r)
	}
	if strings.Contains(r.Message, "d3Jvbmc") || strings.Contains(r.Message, "YWRtaW4") {
		t.Errorf("message leaks a credential: %q", r.Message)
	}
}
