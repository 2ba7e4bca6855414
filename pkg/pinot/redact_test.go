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
