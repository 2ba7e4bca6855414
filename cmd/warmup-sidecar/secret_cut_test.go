package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// secretCut is the credential of the cut test: warmup-sidecar:echo-cut-secret-qzvx (letters only: a
// 4-digit piece of a password would turn up in any log line's timestamp).
const secretCut = "Basic d2FybXVwLXNpZGVjYXI6ZWNoby1jdXQtc2VjcmV0LXF6dng="

// echoCutBroker answers /health 200 and every other path (query, routing, table
// list, schema, start time, quota) 502 with a page that echoes the request's
// Authorization header so far in that the sidecar's 200-character cut falls
// inside the credential, one offset further on each answer.
func echoCutBroker(t *testing.T) string {
	token := strings.TrimPrefix(secretCut, "Basic ")
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/health" {
			fmt.Fprint(w, "OK")
			return
		}
		// The token's first character lands at rune 42+len(pad) of the page.
		k := int(n.Add(1)) % (len(token) + 2)
		w.WriteHeader(http.StatusBadGateway)
		fmt.Fprintf(w, "HTTP 502 Bad Gateway %s Authorization: %s and more text after it",
			strings.Repeat("x", 200-42-k), r.Header.Get("Authorization"))
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// pieceOf returns the first n-byte piece of secret in text, or "".
func pieceOf(text, secret string, n int) string {
	for i := 0; i+n <= len(secret); i++ {
		if strings.Contains(text, secret[i:i+n]) {
			return secret[i : i+n]
		}
	}
	return ""
}

// TestSecretEchoCutInside: an echoed credential cut by the sidecar's 200-character
// limit leaves no 4-character piece of it, nor of its password, in /status, the
// log lines (at debug: every failed probe, plan retry and start-time read) or the
// once and plan subcommands' errors — on the probe path and on the planning path.
func TestSecretEchoCutInside(t *testing.T) {
	url := echoCutBroker(t)
	file := filepath.Join(t.TempDir(), "auth")
	if err := os.WriteFile(file, []byte(secretCut+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	base := []string{"WARMUP_BROKER_URL=" + url, "WARMUP_AUTH_HEADER_FILE=" + file, "WARMUP_BUDGET=1500ms"}
	outputs := map[string]string{}
	for name, env := range map[string][]string{
		"probes":   {"WARMUP_QUERY=SELECT COUNT(*) FROM orders"},
		"planning": {"WARMUP_CONTROLLER_URL=" + url},
		"routing":  {"WARMUP_TABLES=orders"},
	} {
		s := startSidecar(t, append(base, env...)...)
		s.waitFor(t, 10*time.Second, "/readyz 200 (fail-open)", func() bool { code, _ := httpGet(s.url("/readyz")); return code == 200 })
		st, status := s.status(t)
		_ = s.stop(3 * time.Second)
		if st.LastError == "" || !strings.Contains(st.LastError, "HTTP 502") {
			t.Errorf("%s: last_error %q, want the 502 page quoted", name, st.LastError)
		}
		outputs[name+" /status"], outputs[name+" logs"] = status, s.logs.String()
		for _, sub := range []string{"once", "plan"} {
			args := []string{sub}
			if sub == "plan" {
				args = append(args, "-timeout=1500ms")
			}
			cmd := exec.Command(binary(t), args...)
			cmd.Env = cleanEnv(append(append(base, env...), "WARMUP_LOG_LEVEL=debug")...)
			out, _ := cmd.CombinedOutput()
			outputs[name+" "+sub] = string(out)
		}
	}
	if !strings.Contains(outputs["probes logs"], "Authorization: [REDACTED]") {
		t.Errorf("no probe failure shows the masked echo:\n%s", tailStr(outputs["probes logs"], 2000))
	}
	for where, text := range outputs {
		for _, secret := range []string{strings.TrimPrefix(secretCut, "Basic "), "echo-cut-secret-qzvx"} {
			if p := pieceOf(text, secret, 4); p != "" {
				t.Errorf("%s keeps %q of the credential:\n%s", where, p, tailStr(text, 1500))
			}
		}
	}
}
