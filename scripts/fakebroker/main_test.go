package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// footprint.sh points the sidecar's broker and controller at this one address and
// reads the probe count from /fake/stats.
func TestOneAddressServesBrokerControllerAndStats(t *testing.T) {
	srv := httptest.NewServer(newHandler([]string{"orders", "clicks"}, 0))
	defer srv.Close()
	call := func(method, path, body string) (int, string) {
		t.Helper()
		req, err := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	for _, c := range []struct{ method, path, body, want string }{
		{"GET", "/health", "", "OK"},
		{"GET", "/tables", "", `{"tables":["clicks","orders"]}`},
		{"GET", "/debug/routingTable/clicks", "", `{"clicks_OFFLINE":{"Server_10.0.0.2_8098":["clicks_0"]}}`},
		{"POST", "/query/sql", `{"sql":"SELECT * FROM \"orders_OFFLINE\" LIMIT 1"}`, `"numServersResponded":1`},
		{"POST", "/query/sql", `{"sql":"SELECT 1"}`, `"exceptions":[]`},
		{"GET", "/fake/stats", "", `{"queries":1,"no_scatter":1}`},
	} {
		if code, body := call(c.method, c.path, c.body); code != 200 || !strings.Contains(body, c.want) {
			t.Errorf("%s %s: %d %q, want 200 with %q", c.method, c.path, code, body, c.want)
		}
	}
}
