package pinot

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/warmup-sidecar/warmup-sidecar/internal/fakepinot"
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

// TestEchoedUnpaddedBasicAndRuns: a credential sent without its base64
// padding (Pinot accepts it) has its password masked too, and a page showing
// only a run from the credential's middle or tail keeps none of it.
func TestEchoedUnpaddedBasicAndRuns(t *testing.T) {
	const header = "Basic YWRtaW46czNjcmV0UGFzc3cwcmQ" // admin:s3cretPassw0rd, unpadded
	cred := strings.TrimPrefix(header, "Basic ")
	for _, page := range []string{
		"login failed for admin with password s3cretPassw0rd",
		"proxy: token ..." + cred[len(cred)-16:] + " refused",
		"proxy: password ...etPassw0 refused",
	} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusBadGateway)
			fmt.Fprint(w, page)
		}))
		c := newClient(t, Options{BrokerURL: srv.URL, ControllerURL: srv.URL, Auth: staticAuth(header)})
		texts := []string{c.Query(context.Background(), Query{SQL: "SELECT 1"}).Message}
		_, err := c.Tables(context.Background())
		texts = append(texts, fmt.Sprint(err))
		srv.Close()
		for _, text := range texts {
			if p := pieceOf(text, "s3cretPassw0rd", 8); p != "" {
				t.Errorf("%q keeps %q of the password", text, p)
			}
			if p := pieceOf(text, cred, 8); p != "" {
				t.Errorf("%q keeps %q of the credential", text, p)
			}
			if !strings.Contains(text, "[REDACTED]") {
				t.Errorf("%q: expected a redaction marker", text)
			}
		}
	}
}

// TestEchoedQueryLiterals: a broker error that quotes the query — whole, with
// its white space folded by the broker, cut inside a value by the 200-character
// limit, JSON-escaped in an HTTP error page — keeps none of its values; the
// query's shape stays readable.
func TestEchoedQueryLiterals(t *testing.T) {
	sql := `SELECT COUNT(*) FROM "people" WHERE "email" IN ('jane.doe.private@example.com', 'Jane  Q.  Customer', 'it''s') AND "ts" > 1796119200000 LIMIT 10`
	folded := strings.Join(strings.Fields(sql), " ")
	quoted, _ := json.Marshal(sql)
	// The filler puts the first value's opening quote at the 190th character of
	// the message ("SQLParsingError: ~~~ Caught…"): the cut falls inside it.
	cut := strings.Repeat("~", 189-len("SQLParsingError: ")-len(" Caught exception while parsing query: ")-len(`SELECT COUNT(*) FROM "people" WHERE "email" IN (`))
	for name, answer := range map[string]struct {
		status int
		body   string
	}{
		"whole":   {200, fakepinot.Error(150, "SQLParsingError", "Caught exception while parsing query: "+sql)},
		"folded":  {200, fakepinot.Error(150, "SQLParsingError", "Caught exception while parsing query: "+folded)},
		"cut":     {200, fakepinot.Error(150, "SQLParsingError", cut+" Caught exception while parsing query: "+sql)},
		"value":   {200, fakepinot.Error(200, "QueryExecutionError", "no match for Jane Q. Customer or it's at 1796119200000")},
		"escaped": {500, `{"code":500,"error":` + string(quoted) + `}`},
	} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(answer.status)
			fmt.Fprint(w, answer.body)
		}))
		c := newClient(t, Options{BrokerURL: srv.URL})
		msg := c.Query(context.Background(), Query{SQL: sql}).Message
		srv.Close()
		for _, v := range []string{"jane", "Jane", "Customer", "example", "it's", "it''s", "17961"} {
			if strings.Contains(msg, v) {
				t.Errorf("%s: %q keeps %q", name, msg, v)
			}
		}
		if name != "value" && !strings.Contains(msg, `"email" IN (?`) {
			t.Errorf("%s: %q lost the query's shape", name, msg)
		}
	}
}
