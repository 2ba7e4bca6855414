package pinot

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// cutHeader is the credential of the cut tests: warmup-sidecar:echo-cut-secret-8231.
const cutHeader = "Basic d2FybXVwLXNpZGVjYXI6ZWNoby1jdXQtc2VjcmV0LTgyMzE="

// TestEchoedCredentialCutInside: a page that echoes the Authorization header far
// enough in that the 200-character cut falls inside the credential, at each of its
// offsets in turn, on every call that quotes an answer (query, table list,
// routing, schema, start time, quota). No text may keep minSecretRun or more
// characters of the credential or of its password.
func TestEchoedCredentialCutInside(t *testing.T) {
	token := strings.TrimPrefix(cutHeader, "Basic ")
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// "HTTP 502 Bad Gateway " + pad + "Authorization: Basic " puts the first
		// character of the token at rune 42+len(pad); the cut is at rune 200.
		k := int(n.Add(1)) % (len(token) + 2)
		pad := strings.Repeat("x", 200-42-k)
		w.WriteHeader(http.StatusBadGateway)
		fmt.Fprintf(w, "HTTP 502 Bad Gateway %s Authorization: %s and more text after it", pad, r.Header.Get("Authorization"))
	}))
	t.Cleanup(srv.Close)
	c := newClient(t, Options{BrokerURL: srv.URL, ControllerURL: srv.URL, Auth: staticAuth(cutHeader)})
	ctx := context.Background()
	var texts []string
	for range len(token) + 2 {
		texts = append(texts, c.Query(ctx, Query{SQL: "SELECT 1"}).Message)
		_, err := c.Tables(ctx)
		texts = append(texts, fmt.Sprint(err))
		_, err = c.RoutingTable(ctx, "t")
		texts = append(texts, fmt.Sprint(err))
		_, err = c.Schema(ctx, "t")
		texts = append(texts, fmt.Sprint(err))
		_, err = c.StartTime(ctx)
		texts = append(texts, fmt.Sprint(err))
		_, _, err = c.QueryQuota(ctx, "t_OFFLINE")
		texts = append(texts, fmt.Sprint(err))
	}
	for _, text := range texts {
		for _, secret := range []string{token, "echo-cut-secret-8231"} {
			if p := pieceOf(text, secret, 4); p != "" {
				t.Errorf("%q keeps %q of the credential", text, p)
			}
		}
	}
}

// pieceOf returns the first n-byte piece of secret found in text, or "".
func pieceOf(text, secret string, n int) string {
	for i := 0; i+n <= len(secret); i++ {
		if strings.Contains(text, secret[i:i+n]) {
			return secret[i : i+n]
		}
	}
	return ""
}
