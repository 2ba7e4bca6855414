package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/internal/config"
)

// badValue is one WARMUP_* variable set to something wrong.
type badValue struct {
	env  string // VAR=value
	name string // the variable the one-line message must name
}

func badValues(t *testing.T) []badValue {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty")
	if err := os.WriteFile(empty, []byte(" \n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return []badValue{
		{env: "WARMUP_ENABLED=maybe", name: "WARMUP_ENABLED"},
		{env: "WARMUP_BROKER_URL=localhost:8099", name: "WARMUP_BROKER_URL"},
		{env: "WARMUP_BROKER_URL=ftp://broker:8099", name: "WARMUP_BROKER_URL"},
		{env: "WARMUP_BROKER_URL=http://:8099", name: "WARMUP_BROKER_URL"},
		{env: "WARMUP_BROKER_URL=", name: "WARMUP_BROKER_URL"},
		{env: "WARMUP_BROKER_URL=http://127.0.0.1:1/foo", name: "WARMUP_BROKER_URL"}, // /health would 404 forever
		{env: "WARMUP_BROKER_URL=http://127.0.0.1:1?x=1", name: "WARMUP_BROKER_URL"},
		{env: "WARMUP_BROKER_URL= http://127.0.0.1:1", name: "WARMUP_BROKER_URL"},
		{env: "WARMUP_BROKER_URL=http://127.0.0.1:1\n", name: "WARMUP_BROKER_URL"},
		{env: "WARMUP_CONTROLLER_URL=pinot-controller:9000", name: "WARMUP_CONTROLLER_URL"},
		{env: "WARMUP_BUDGET=soon", name: "WARMUP_BUDGET"},
		{env: "WARMUP_BUDGET=0s", name: "WARMUP_BUDGET"},
		{env: "WARMUP_BUDGET=-5s", name: "WARMUP_BUDGET"},
		{env: "WARMUP_BUDGET=15", name: "WARMUP_BUDGET"},
		{env: "WARMUP_MIN_ITERATIONS=-1", name: "WARMUP_MIN_ITERATIONS"},
		{env: "WARMUP_MIN_ITERATIONS=lots", name: "WARMUP_MIN_ITERATIONS"},
		{env: "WARMUP_MIN_ITERATIONS=1e3", name: "WARMUP_MIN_ITERATIONS"},
		{env: "WARMUP_MAX_TABLES=0", name: "WARMUP_MAX_TABLES"},
		{env: "WARMUP_MAX_TABLES=five", name: "WARMUP_MAX_TABLES"},
		{env: "WARMUP_QUERY=SELECT 'unterminated FROM t", name: "WARMUP_QUERY"},
		{env: "WARMUP_QUERY= ; ; ", name: "WARMUP_QUERY"},
		{env: "WARMUP_QUERY=SELECT 1; SET useMultistageEngine=true", name: "WARMUP_QUERY"},
		{env: "WARMUP_QUERY=SELECT 1 /* unclosed", name: "WARMUP_QUERY"},
		{env: "WARMUP_TABLES= , , ", name: "WARMUP_TABLES"},
		{env: `WARMUP_TABLES=orders"x`, name: "WARMUP_TABLES"},
		{env: "WARMUP_CONCURRENCY=many", name: "WARMUP_CONCURRENCY"},
		{env: "WARMUP_CONCURRENCY=2.5", name: "WARMUP_CONCURRENCY"},
		{env: "WARMUP_MAX_PROBE_RATE=-1", name: "WARMUP_MAX_PROBE_RATE"},
		{env: "WARMUP_MAX_PROBE_RATE=20/s", name: "WARMUP_MAX_PROBE_RATE"},
		{env: "WARMUP_MAX_PROBE_RATE=NaN", name: "WARMUP_MAX_PROBE_RATE"},
		{env: "WARMUP_PROBE_TIMEOUT=fast", name: "WARMUP_PROBE_TIMEOUT"},
		{env: "WARMUP_PROBE_TIMEOUT=0s", name: "WARMUP_PROBE_TIMEOUT"},
		{env: "WARMUP_FAIL_CLOSED=yes", name: "WARMUP_FAIL_CLOSED"},
		{env: "WARMUP_REARM=sometimes", name: "WARMUP_REARM"},
		{env: "WARMUP_AUTH_HEADER_FILE=" + filepath.Join(dir, "missing"), name: "WARMUP_AUTH_HEADER_FILE"},
		{env: "WARMUP_AUTH_HEADER_FILE=" + empty, name: "WARMUP_AUTH_HEADER_FILE"},
		{env: "WARMUP_AUTH_HEADER_FILE=" + dir, name: "WARMUP_AUTH_HEADER_FILE"},
		{env: "WARMUP_LISTEN_ADDR=9095", name: "WARMUP_LISTEN_ADDR"},
		{env: "WARMUP_LISTEN_ADDR=:99999", name: "WARMUP_LISTEN_ADDR"},
		{env: "WARMUP_LOG_FORMAT=xml", name: "WARMUP_LOG_FORMAT"},
		{env: "WARMUP_LOG_LEVEL=loud", name: "WARMUP_LOG_LEVEL"},
		{env: "WARMUP_EXIT=latency", name: "WARMUP_EXIT"},
		{env: "WARMUP_PROBE_SHAPES=none", name: "WARMUP_PROBE_SHAPES"},
		{env: "WARMUP_MULTISTAGE=1", name: "WARMUP_MULTISTAGE"},
		{env: "WARMUP_CONVERGE_TOLERANCE=20%", name: "WARMUP_CONVERGE_TOLERANCE"},
		{env: "WARMUP_CONVERGE_TOLERANCE=2", name: "WARMUP_CONVERGE_TOLERANCE"},
		{env: "WARMUP_CONVERGE_WINDOWS=0", name: "WARMUP_CONVERGE_WINDOWS"},
		{env: "WARMUP_JVM_METRICS_URL=localhost:8008/metrics", name: "WARMUP_JVM_METRICS_URL"},
		{env: "WARMUP_BROKER_AOT_LOG=aot.log", name: "WARMUP_BROKER_AOT_LOG"},
		{env: "WARMUP_CPU_BOOST_ENABLED=on", name: "WARMUP_CPU_BOOST_ENABLED"},
		{env: "WARMUP_CPU_BOOST_ENABLED=true", name: "WARMUP_CPU_BOOST_TARGET_LIMIT"}, // no target, no pod identity
		{env: "WARMUP_CPU_BOOST_CONTAINER=Broker", name: "WARMUP_CPU_BOOST_CONTAINER"},
		{env: "WARMUP_CPU_BOOST_TARGET_REQUEST=1Gi", name: "WARMUP_CPU_BOOST_TARGET_REQUEST"},
		{env: "WARMUP_CPU_BOOST_TARGET_LIMIT=two", name: "WARMUP_CPU_BOOST_TARGET_LIMIT"},
		{env: "WARMUP_CPU_BOOST_MAX_DURATION=10", name: "WARMUP_CPU_BOOST_MAX_DURATION"},
		{env: "WARMUP_CPU_BOOST_SETTLE=-1s", name: "WARMUP_CPU_BOOST_SETTLE"},
		{env: "WARMUP_POD_NAME=Pinot_Broker_0", name: "WARMUP_POD_NAME"},
		{env: "WARMUP_POD_NAMESPACE=pinot.ns", name: "WARMUP_POD_NAMESPACE"},
		{env: "WARMUP_KUBE_SERVICE_ACCOUNT_DIR=./serviceaccount", name: "WARMUP_KUBE_SERVICE_ACCOUNT_DIR"},
		{env: "WARMUP_BUDGETS=15s", name: "WARMUP_BUDGETS"},
		{env: "WARMUP_ENABLE=true", name: "WARMUP_ENABLE"},
	}
}

// runBad runs a subcommand with env (and args) and returns its exit code and
// stderr. A bad configuration exits at once; a process still running after 3s was
// accepted by mistake and is killed (by PID, through the context): code -1.
func runBad(t *testing.T, sub string, env []string, args ...string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary(t), append([]string{sub}, args...)...)
	cmd.Env = env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	if ctx.Err() != nil {
		return -1, stderr.String()
	}
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), stderr.String()
	}
	if err != nil {
		t.Fatal(err)
	}
	return 0, stderr.String()
}

// TestConfigFaultEveryVariable: every WARMUP_* variable with a wrong value makes
// serve, once and plan exit 2 with one line on stderr naming the variable.
func TestConfigFaultEveryVariable(t *testing.T) {
	cases := badValues(t)
	covered := map[string]bool{}
	for _, c := range cases {
		covered[c.name] = true
	}
	for _, k := range config.Known() {
		if !covered[k] {
			t.Errorf("no bad-value case for %s", k)
		}
	}
	// A valid base: the bad value replaces its own variable. The broker port is
	// closed, so a configuration accepted by mistake is seen, not hung on.
	base := map[string]string{
		"WARMUP_BROKER_URL": "http://127.0.0.1:1", "WARMUP_CONTROLLER_URL": "http://127.0.0.1:1",
		"WARMUP_LISTEN_ADDR": "127.0.0.1:0", "WARMUP_BUDGET": "300ms",
	}
	binary(t)
	for _, c := range cases {
		t.Run(c.env, func(t *testing.T) {
			t.Parallel()
			name, _, _ := strings.Cut(c.env, "=")
			var env []string
			for k, v := range base {
				if k != name {
					env = append(env, k+"="+v)
				}
			}
			env = cleanEnv(append(env, c.env)...)
			subs := []string{"serve", "once", "plan"}
			if name == "WARMUP_LISTEN_ADDR" {
				subs = []string{"serve"} // only serve listens
			}
			for _, sub := range subs {
				code, stderr := runBad(t, sub, env)
				line := strings.TrimSpace(stderr)
				if code != 2 {
					t.Errorf("%s: exit %d, want 2; stderr %q", sub, code, tailStr(line, 500))
				}
				if !strings.Contains(line, c.name) || strings.Contains(line, "\n") {
					t.Errorf("%s: stderr %q, want one line naming %s", sub, tailStr(line, 500), c.name)
				}
			}
		})
	}
}

// TestConfigFaultNeverEchoesTheSecret: with WARMUP_AUTH_HEADER_FILE pointing at a
// real secret and another variable wrong, the error names the variable and no
// 8-character piece of the secret reaches stderr.
func TestConfigFaultNeverEchoesTheSecret(t *testing.T) {
	secret := "Basic " + "d2FybXVwOmNvcnJlY3QtaG9yc2UtYmF0dGVyeS1zdGFwbGU=" // warmup:correct-horse-battery-staple
	file := filepath.Join(t.TempDir(), "auth")
	if err := os.WriteFile(file, []byte(secret+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	binary(t)
	for _, c := range badValues(t) {
		if strings.HasPrefix(c.env, "WARMUP_AUTH_HEADER_FILE=") {
			continue
		}
		t.Run(c.env, func(t *testing.T) {
			t.Parallel()
			checkNoSecret(t, c, file, secret)
		})
	}
}

func checkNoSecret(t *testing.T, c badValue, file, secret string) {
	env := cleanEnv("WARMUP_BROKER_URL=http://127.0.0.1:1", "WARMUP_TABLES=orders", "WARMUP_LISTEN_ADDR=127.0.0.1:0",
		"WARMUP_BUDGET=300ms", "WARMUP_AUTH_HEADER_FILE="+file, c.env)
	for _, sub := range []string{"serve", "once", "plan"} {
		_, stderr := runBad(t, sub, env)
		if piece := leaked(stderr, secret); piece != "" {
			t.Errorf("%s with %s: stderr carries %q of the secret: %q", sub, c.env, piece, stderr)
		}
	}
}

// TestConfigFaultSecretInThePathVariable: a common mistake is to put the header
// value itself into WARMUP_AUTH_HEADER_FILE (env from a Secret key instead of a
// mounted file). The error must still not print it.
func TestConfigFaultSecretInThePathVariable(t *testing.T) {
	secret := "Basic d2FybXVwOnMzY3JldC1wYXNzd29yZA=="
	code, stderr := runBad(t, "serve", cleanEnv("WARMUP_TABLES=orders", "WARMUP_AUTH_HEADER_FILE="+secret))
	if code != 2 || !strings.Contains(stderr, "WARMUP_AUTH_HEADER_FILE") {
		t.Fatalf("exit %d, stderr %q; want 2 naming WARMUP_AUTH_HEADER_FILE", code, stderr)
	}
	if piece := leaked(stderr, secret); piece != "" {
		t.Fatalf("a credential set by mistake as the path is printed: %q", stderr)
	}
}

// leaked returns the first 8-byte piece of secret found in text, or "".
func leaked(text, secret string) string {
	for i := 0; i+8 <= len(secret); i++ {
		if p := secret[i : i+8]; strings.Contains(text, p) {
			return p
		}
	}
	return ""
}

// FuzzConfigQueryAndTables loads WARMUP_QUERY and WARMUP_TABLES as the binary
// does (config.LoadFrom): no panic; an error is one line naming its variable; an
// accepted WARMUP_TABLES is a list of distinct, trimmed, comma-free names, and
// accepted queries are non-blank.
func FuzzConfigQueryAndTables(f *testing.F) {
	for _, s := range [][2]string{
		{"", "orders"},
		{"SELECT 1; SELECT * FROM t WHERE s = 'a;b'", ""},
		{"", " a , b,a ,, "},
		{"SELECT 'x", "t"},
		{" ; ; ", ""},
		{"SELECT \"a\"\"b\" FROM `c;d`", "x\ny"},
		{"\xff'", "\xfe,\x00"},
		{"SET a = 'x;y'; SELECT 1 -- c;\n; SET b = 1", ""},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, query, tables string) {
		env := []string{"WARMUP_BROKER_URL=http://127.0.0.1:8099", "WARMUP_CONTROLLER_URL=http://127.0.0.1:9000",
			"WARMUP_QUERY=" + query, "WARMUP_TABLES=" + tables}
		cfg, _, err := config.LoadFrom(env)
		if err != nil {
			msg := err.Error()
			if strings.ContainsAny(msg, "\n\r") {
				t.Fatalf("error spans lines: %q", msg)
			}
			if !strings.Contains(msg, "WARMUP_QUERY") && !strings.Contains(msg, "WARMUP_TABLES") {
				t.Fatalf("error names neither variable: %q", msg)
			}
			return
		}
		seen := map[string]bool{}
		for _, tb := range cfg.TableList {
			if tb == "" || tb != strings.TrimSpace(tb) || strings.Contains(tb, ",") || seen[tb] {
				t.Fatalf("WARMUP_TABLES=%q gave table %q in %q", tables, tb, cfg.TableList)
			}
			seen[tb] = true
		}
		if cfg.Query != "" && len(cfg.TableList) != 0 {
			t.Fatalf("WARMUP_TABLES kept (%q) although WARMUP_QUERY is set", cfg.TableList)
		}
		for _, q := range cfg.Queries {
			if strings.TrimSpace(q) == "" {
				t.Fatalf("WARMUP_QUERY=%q gave a blank query", query)
			}
		}
	})
}

// TestConfigFaultTokenInThePathVariable: the usual content of a token Secret — a
// JWT, a base64 user:password without its scheme word, or the whole "Basic …"
// value — put into WARMUP_AUTH_HEADER_FILE by mistake is a path that does not
// exist. The exit-2 line (which the chart's FallbackToLogsOnError makes the pod's
// termination message) names the variable and keeps no 4-character piece of it;
// a value that is plainly a path is still shown.
func TestConfigFaultTokenInThePathVariable(t *testing.T) {
	for _, token := range []string{
		"eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJ3YXJtdXAtc2lkZWNhciJ9.c2lnbmVkLWJ5LXRoZS1pc3N1ZXItOTk",
		"d2FybXVwLXNpZGVjYXI6dG9rZW4taW4tdGhlLXBhdGgtNTUy", // warmup-sidecar:token-in-the-path-552
		"Basic d2FybXVwLXNpZGVjYXI6dG9rZW4taW4tdGhlLXBhdGgtNTUy",
		"d2FybXVwLXNpZGVjYXI6dG9rZW4taW4tdGhlLXBhdGgtNTUy\n", // as a Secret key often ends
	} {
		for _, sub := range []string{"serve", "once", "plan"} {
			code, stderr := runBad(t, sub, cleanEnv("WARMUP_TABLES=orders", "WARMUP_LISTEN_ADDR=127.0.0.1:0", "WARMUP_AUTH_HEADER_FILE="+token))
			if code != 2 || !strings.Contains(stderr, "WARMUP_AUTH_HEADER_FILE") || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
				t.Errorf("%s: exit %d, stderr %q; want 2 and one line naming WARMUP_AUTH_HEADER_FILE", sub, code, stderr)
			}
			cred := strings.TrimSpace(strings.TrimPrefix(token, "Basic "))
			for i := 0; i+4 <= len(cred); i++ {
				if strings.Contains(stderr, cred[i:i+4]) {
					t.Errorf("%s: stderr %q carries %q of the token set as the path", sub, stderr, cred[i:i+4])
					break
				}
			}
		}
	}
	missing := "/var/run/secrets/pinot-auth/no-such-header"
	if _, stderr := runBad(t, "plan", cleanEnv("WARMUP_TABLES=orders", "WARMUP_AUTH_HEADER_FILE="+missing)); !strings.Contains(stderr, missing) {
		t.Errorf("a plain path is not shown: %q", stderr)
	}
}

// TestBrokerURLTrailingSlash: one trailing / on WARMUP_BROKER_URL is dropped, and
// the sidecar warms the broker as without it.
func TestBrokerURLTrailingSlash(t *testing.T) {
	f := newPinotFake(t)
	s := startSidecar(t, "WARMUP_BROKER_URL="+f.srv.URL+"/", "WARMUP_QUERY=SELECT COUNT(*) FROM orders",
		"WARMUP_MIN_ITERATIONS=20", "WARMUP_EXIT=floor")
	s.waitFor(t, 10*time.Second, "/readyz 200", func() bool { code, _ := httpGet(s.url("/readyz")); return code == 200 })
	if st, _ := s.status(t); st.Outcome != "warm" {
		t.Errorf("outcome %q, want warm", st.Outcome)
	}
}
