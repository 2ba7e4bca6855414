package pinot

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

type staticAuth string

func (a staticAuth) Header() (string, error) { return string(a), nil }

func TestQueryQuota(t *testing.T) {
	// Pinot answers text/plain with Java's String.valueOf(double) of the per-broker
	// rate; "0.0" when the table has no quota; the map is keyed by typed names.
	cases := []struct {
		name   string
		status int
		body   string
		qps    float64
		ok     bool
		errHas string
	}{
		{"quota", 200, "25.0", 25, true, ""},
		{"fraction", 200, "3.3333333333333335\n", 3.3333333333333335, true, ""},
		{"java exponent", 200, "1.0E7", 1e7, true, ""},
		{"no quota", 200, "0.0", 0, false, ""},
		{"negative", 200, "-1.0", 0, false, ""},
		{"NaN", 200, "NaN", 0, false, ""},
		{"infinite", 200, "Infinity", 0, false, ""},
		{"endpoint missing (old broker)", 404, `{"code":404,"error":"HTTP 404 Not Found"}`, 0, false, ""},
		{"unauthorized", 401, `{"code":401,"error":"HTTP 401 Unauthorized"}`, 0, false, "HTTP 401"},
		{"forbidden", 403, `{"code":403,"error":"Permission denied"}`, 0, false, "HTTP 403"},
		{"html error page", 502, "<html><body><h1>502 Bad Gateway</h1></body></html>", 0, false, "HTTP 502"},
		{"not a number", 200, `{"qps": 3}`, 0, false, "unparsable answer"},
		{"empty", 200, "", 0, false, "unparsable answer"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var path, auth string
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				path, auth = r.URL.EscapedPath(), r.Header.Get("Authorization")
				w.Header().Set("Content-Type", "text/plain")
				w.WriteHeader(c.status)
				fmt.Fprint(w, c.body)
			}))
			defer srv.Close()
			hc := DefaultHTTPClient()
			defer hc.CloseIdleConnections()
			cl := New(Options{BrokerURL: srv.URL, HTTPClient: hc, Auth: staticAuth("Basic cXVvdGE6c2VjcmV0")})
			qps, ok, err := cl.QueryQuota(context.Background(), "my table_OFFLINE")
			if path != "/debug/tables/queryQuota/my%20table_OFFLINE" {
				t.Errorf("path = %q", path)
			}
			if auth != "Basic cXVvdGE6c2VjcmV0" {
				t.Errorf("Authorization = %q: the endpoint needs the same auth as the others", auth)
			}
			if qps != c.qps || ok != c.ok {
				t.Errorf("got (%v, %v), want (%v, %v)", qps, ok, c.qps, c.ok)
			}
			switch {
			case c.errHas == "" && err != nil:
				t.Errorf("err = %v, want none", err)
			case c.errHas != "" && (err == nil || !strings.Contains(err.Error(), c.errHas)):
				t.Errorf("err = %v, want one containing %q", err, c.errHas)
			case err != nil && strings.Contains(err.Error(), "cXVvdGE6c2VjcmV0"):
				t.Errorf("error text carries the credential: %v", err)
			}
			var ue *UnauthorizedError
			if c.status == 401 && !errors.As(err, &ue) {
				t.Errorf("401 is not an UnauthorizedError: %v", err)
			}
		})
	}
}

func TestQueryQuotaNoAnswer(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close() // refused from now on
	_, ok, err := New(Options{BrokerURL: url}).QueryQuota(context.Background(), "t_OFFLINE")
	if ok || err == nil || !strings.Contains(err.Error(), `getting query quota of "t_OFFLINE"`) {
		t.Fatalf("ok %v err %v; want an error naming the table", ok, err)
	}
}

func FuzzParseQueryQuota(f *testing.F) {
	for _, s := range []string{"25.0", "0.0", "1.0E7", "NaN", "-Infinity", "", " 3 ", "0x1p-2", "1e400"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		qps, ok, err := ParseQueryQuota(body)
		if ok && (err != nil || qps <= 0 || math.IsNaN(qps) || math.IsInf(qps, 0)) {
			t.Fatalf("ParseQueryQuota(%q) = %v, %v, %v: ok with an unusable rate", body, qps, ok, err)
		}
		if !ok && qps != 0 {
			t.Fatalf("ParseQueryQuota(%q) = %v with ok false", body, qps)
		}
	})
}
