package pinot

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestStartTime(t *testing.T) {
	cases := []struct {
		name    string
		status  int
		body    string
		want    string
		wantErr string
	}{
		{"Pinot 1.x answers an ISO instant", 200, "2026-12-01T10:00:00.123Z\n", "2026-12-01T10:00:00.123Z", ""},
		{"Pinot 0.x has no endpoint: unknown, no error", 404, "", "", ""},
		{"credentials refused", 401, `{"code":401}`, "", "HTTP 401"},
		{"server error", 500, "<html>boom</html>", "", "getting broker start time: HTTP 500: <html>boom</html>"},
		{"an HTML page with 200", 200, "<html><body>proxy</body></html>", "", "unexpected answer"},
		{"an empty 200", 200, "", "", "unexpected answer"},
		{"a 200 echoing the credential", 200, "c2lkZWNhcjpzM2NyZXQ=", "", `unexpected answer "[REDACTED]"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var auth string
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path != "/start-time" || r.Method != http.MethodGet {
					http.NotFound(w, r)
					return
				}
				auth = r.Header.Get("Authorization")
				w.WriteHeader(c.status)
				fmt.Fprint(w, c.body)
			}))
			defer srv.Close()
			cl := newClient(t, Options{BrokerURL: srv.URL, Auth: staticAuth("Basic c2lkZWNhcjpzM2NyZXQ=")})
			got, err := cl.StartTime(context.Background())
			if got != c.want {
				t.Errorf("StartTime = %q, want %q", got, c.want)
			}
			switch {
			case c.wantErr == "" && err != nil:
				t.Errorf("error %v, want none", err)
			case c.wantErr != "" && (err == nil || !strings.Contains(err.Error(), c.wantErr)):
				t.Errorf("error %v, want one containing %q", err, c.wantErr)
			}
			if auth != "Basic c2lkZWNhcjpzM2NyZXQ=" {
				t.Errorf("Authorization sent %q: /start-time needs the credential", auth)
			}
		})
	}
}

func TestStartTimeRefusedIsAnError(t *testing.T) {
	c := newClient(t, Options{BrokerURL: closedURL(t)})
	if v, err := c.StartTime(context.Background()); err == nil || v != "" {
		t.Fatalf("refused connection: %q, %v; want an error", v, err)
	}
}
