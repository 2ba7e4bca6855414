package pinot

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// An answer up to MaxAnswerBytes is read and classified; one byte more is a
// failed probe that says why, without reading the rest.
func TestAnswerSizeIsCapped(t *testing.T) {
	success := `{"exceptions":[],"numServersQueried":1,"numServersResponded":1}`
	pad := func(n int) string { // valid JSON of exactly n bytes
		return success[:len(success)-1] + `,"x":"` + strings.Repeat("a", n-len(success)-7) + `"}`
	}
	for _, c := range []struct {
		name  string
		body  string
		class Class
	}{
		{"small", success, Success},
		{"exactly the cap", pad(MaxAnswerBytes), Success},
		{"one byte over", pad(MaxAnswerBytes + 1), Transient},
		{"far over", pad(8 * MaxAnswerBytes), Transient},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				_, _ = w.Write([]byte(c.body))
			}))
			defer srv.Close()
			r := New(Options{BrokerURL: srv.URL}).Query(context.Background(), Query{SQL: "SELECT 1"})
			if r.Class != c.class {
				t.Fatalf("class %s (%s), want %s", r.Class, r.Message, c.class)
			}
			if c.class == Transient && !strings.Contains(r.Message, "answer larger than 1 MiB") {
				t.Fatalf("message %q does not say the answer was too large", r.Message)
			}
		})
	}
}
