package pinot

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestEchoedCredentialIsRedacted(t *testing.T) {
	header := "Basic d2FybXVwOmhvcnNlLWJhdHRlcnk=" // warmup:horse-battery
	file := filepath.Join(t.TempDir(), "auth")
	if err := os.WriteFile(file, []byte(header), 0o600); err != nil {
		t.Fatal(err)
	}
	auth, err := NewFileAuth(file)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusBadGateway)
		fmt.Fprintf(w, "<pre>Authorization: %s user:pass=warmup:horse-battery pw=horse-battery</pre>", r.Header.Get("Authorization"))
	}))
	defer srv.Close()
	c := New(Options{BrokerURL: srv.URL, ControllerURL: srv.URL, Auth: auth})
	texts := []string{c.Query(context.Background(), Query{SQL: "SELECT 1"}).Message}
	if _, err := c.RoutingTable(context.Background(), "t"); err != nil {
		texts = append(texts, err.Error())
	}
	if _, err := c.Tables(context.Background()); err != nil {
		texts = append(texts, err.Error())
	}
	for _, text := range texts {
		for _, secret := range []string{"d2FybXVwOmhvcnNlLWJhdHRlcnk=", "horse-battery"} {
			if strings.Contains(text, secret) {
				t.Errorf("%q leaks %q", text, secret)
			}
		}
		if !strings.Contains(text, "[REDACTED]") {
			t.Errorf("%q: expected a redaction marker", text)
		}
	}
}

// TestRedactorMask: what is masked and what is left, written the ways a page
// may write it.
func TestRedactorMask(t *testing.T) {
	r := newRedactor("Basic d2FybXVwOmhvcnNlLWJhdHRlcnk=") // warmup:horse-battery
	for in, want := range map[string]string{
		"Authorization: Basic d2FybXVwOmhvcnNlLWJhdHRlcnk= end":                        "Authorization: [REDACTED] end",
		"token d2FybXVwOmhvcnNlLWJhdHRlcnk=":                                           "token [REDACTED]",
		"cut by the page: Basic d2Fyb":                                                 "cut by the page: [REDACTED]",
		"cut short: d2Fy":                                                              "cut short: [REDACTED]",
		"three are left: d2F":                                                          "three are left: d2F",
		"Basic auth failed for user warmup":                                            "Basic auth failed for user warmup",
		"decoded warmup:horse-battery here":                                            "decoded warmup:[REDACTED] here",
		`json "d2FybXVwOmhvcnNlLWJhdHRlcnk\u003d"`:                                     `json "[REDACTED]"`,
		"escaped \\u0064\\u0032\\u0046\\u0079":                                         "escaped [REDACTED]",
		"html d2FybXVwOmhvcnNlLWJhdHRlcnk&#61; percent d2FybXVwOmhvcnNlLWJhdHRlcnk%3D": "html [REDACTED] percent [REDACTED]",
		"wrapped d2FybXVwOmhv\n   cnNlLWJhdHRlcnk= after":                              "wrapped [REDACTED] after",
		"escaped newline d2FybXVw\\nOmhv":                                              "escaped newline [REDACTED]",
		"password prefix hors alone, horses too":                                       "password prefix [REDACTED] alone, [REDACTED]s too",
	} {
		if got := r.mask(in); got != want {
			t.Errorf("mask(%q) = %q, want %q", in, got, want)
		}
	}
	if got := (redactor{}).mask("Basic d2FybXVw"); got != "Basic d2FybXVw" {
		t.Errorf("the zero redactor changed %q", got)
	}
}
