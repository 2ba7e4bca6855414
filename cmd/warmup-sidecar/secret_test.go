package main

import (
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/internal/fakepinot"
)

// Credentials for the fake broker (Basic base64 of user:password); each is long
// and distinctive so any 8-byte piece of it in an output is a leak.
const (
	secretA     = "Basic d2FybXVwLXNpZGVjYXI6YWxwaGEtcm90YXRpb24tb25lLTczOTE=" // warmup-sidecar:alpha-rotation-one-7391
	secretB     = "Basic d2FybXVwLXNpZGVjYXI6YnJhdm8tcm90YXRpb24tdHdvLTQ0MDI=" // …:bravo-rotation-two-4402
	secretC     = "Basic d2FybXVwLXNpZGVjYXI6Y2hhcmxpZS1yb3RhdGlvbi0zLTU1MTM=" // …:charlie-rotation-3-5513
	secretWrong = "Basic d3Jvbmctc2lkZWNhcjp3cm9uZy1wYXNzd29yZC05OTk5"         // wrong-sidecar:wrong-password-9999
)

// kubeSecretDir lays a file out the way the kubelet mounts a Secret volume:
// dir/auth → ..data/auth, ..data → ..<timestamp>/; an update writes a new
// timestamped directory and swaps the ..data symlink atomically.
type kubeSecretDir struct {
	t   *testing.T
	dir string
	gen int
}

func newKubeSecretDir(t *testing.T, value string) *kubeSecretDir {
	k := &kubeSecretDir{t: t, dir: t.TempDir()}
	k.publish(value)
	if err := os.Symlink(filepath.Join("..data", "auth"), filepath.Join(k.dir, "auth")); err != nil {
		t.Fatal(err)
	}
	return k
}

func (k *kubeSecretDir) path() string { return filepath.Join(k.dir, "auth") }

func (k *kubeSecretDir) publish(value string) {
	k.gen++
	ts := fmt.Sprintf("..2026_11_29_15_00_%02d.%d", k.gen, k.gen)
	if err := os.Mkdir(filepath.Join(k.dir, ts), 0o755); err != nil {
		k.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(k.dir, ts, "auth"), []byte(value), 0o644); err != nil {
		k.t.Fatal(err)
	}
	tmp := filepath.Join(k.dir, "..data_tmp")
	if err := os.Symlink(ts, tmp); err != nil {
		k.t.Fatal(err)
	}
	if err := os.Rename(tmp, filepath.Join(k.dir, "..data")); err != nil {
		k.t.Fatal(err)
	}
}

// noPiece fails if any 8-byte piece of any secret appears in what.
func noPiece(t *testing.T, where, what string, secrets ...string) {
	t.Helper()
	for _, s := range secrets {
		// The scheme word is not secret; the credential after it is.
		cred := strings.TrimPrefix(s, "Basic ")
		if p := leaked(what, cred); p != "" {
			t.Errorf("%s carries %q, a piece of a credential:\n%s", where, p, tailStr(what, 2000))
		}
	}
}

// TestSecretFullRunAndRotation: with auth required by the broker, a full serve run
// at debug level (plan, probes, warm) and two rotations mid-warmup — an in-place
// rewrite, then a Kubernetes ..data symlink swap — use each new value on the next
// probes, and neither logs nor /status nor /metrics hold any piece of any value.
func TestSecretFullRunAndRotation(t *testing.T) {
	f := newPinotFake(t)
	f.mu.Lock()
	f.auth = secretA
	f.mu.Unlock()
	// Slow enough that the rotations land mid-warmup.
	f.setQuery(func(w http.ResponseWriter, _ *http.Request, sql string) {
		time.Sleep(3 * time.Millisecond)
		if sql != "SELECT 1" {
			f.okAnswers.Add(1)
		}
		fmt.Fprint(w, fakepinot.OK(1))
	})
	k := newKubeSecretDir(t, secretA+"\n")
	s := startSidecar(t, "WARMUP_BROKER_URL="+f.srv.URL, "WARMUP_CONTROLLER_URL="+f.srv.URL,
		"WARMUP_AUTH_HEADER_FILE="+k.path(), "WARMUP_MIN_ITERATIONS=600", "WARMUP_CONCURRENCY=2", "WARMUP_BUDGET=30s")

	s.waitFor(t, 10*time.Second, "100 authorised probes", func() bool { return f.okAnswers.Load() >= 100 })
	// Rotation 1, in place (a writer that is not the kubelet): same path, new content.
	target, err := filepath.EvalSymlinks(k.path())
	if err != nil {
		t.Fatal(err)
	}
	f.mu.Lock()
	f.auth = secretB
	f.mu.Unlock()
	if err := os.WriteFile(target, []byte(secretB+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	okAt := f.okAnswers.Load()
	s.waitFor(t, 10*time.Second, "probes under the rewritten secret", func() bool { return f.okAnswers.Load() >= okAt+100 })

	// Rotation 2, the Kubernetes way: ..data swapped to a new directory.
	f.mu.Lock()
	f.auth = secretC
	f.mu.Unlock()
	k.publish(secretC + "\n")
	okAt = f.okAnswers.Load()
	s.waitFor(t, 10*time.Second, "probes under the swapped secret", func() bool { return f.okAnswers.Load() >= okAt+100 })
	s.waitFor(t, 30*time.Second, "/readyz 200", func() bool { code, _ := httpGet(s.url("/readyz")); return code == 200 })

	f.mu.Lock()
	seen := append([]string(nil), f.seen...)
	f.mu.Unlock()
	// Each rotation is taken up once and for good: the values first appear in the
	// order A, B, C and C is the last. A probe that read B just before the swap can
	// still land after one carrying C (two in flight), so a few flips are allowed.
	var names, firsts []string
	for _, v := range seen {
		n := map[string]string{secretA: "A", secretB: "B", secretC: "C"}[v]
		if !slices.Contains(names, n) {
			firsts = append(firsts, n)
		}
		names = append(names, n)
	}
	if !slices.Equal(firsts, []string{"A", "B", "C"}) || names[len(names)-1] != "C" || len(names) > 3+2*2 { // firsts has 3 entries, so names is not empty
		t.Errorf("Authorization values in order: %v, want A, B, C: each rotation taken up once and for good", names)
	}
	// Only probes already in flight at a swap may carry the old value.
	if n := f.unauthorized.Load(); n > 2*2 {
		t.Errorf("%d requests refused around two rotations, want ≤ 2 × concurrency", n)
	}
	st, statusBody := s.status(t)
	if st.Outcome != "warm" {
		t.Errorf("outcome %q", st.Outcome)
	}
	_, metrics := httpGet(s.url("/metrics"))
	_, readyz := httpGet(s.url("/readyz"))
	if err := s.stop(3 * time.Second); err != nil {
		t.Fatal(err)
	}
	logs := s.logs.String()
	for where, text := range map[string]string{"logs": logs, "/status": statusBody, "/metrics": metrics, "/readyz": readyz} {
		noPiece(t, where, text, secretA, secretB, secretC)
	}
}

// TestSecretErrorTexts: a rejected credential produces error texts everywhere —
// the 401 log line, debug probe failures, /status last_error, the plan retry, the
// once and plan subcommands' errors — and none of them holds the credential.
func TestSecretErrorTexts(t *testing.T) {
	f := newPinotFake(t)
	f.mu.Lock()
	f.auth = secretA
	f.mu.Unlock()
	file := filepath.Join(t.TempDir(), "auth")
	if err := os.WriteFile(file, []byte(secretWrong), 0o600); err != nil {
		t.Fatal(err)
	}
	env := []string{"WARMUP_BROKER_URL=" + f.srv.URL, "WARMUP_AUTH_HEADER_FILE=" + file, "WARMUP_BUDGET=1s", "WARMUP_MIN_ITERATIONS=10"}

	// Planning refused (routing needs auth): the plan retry carries the 401.
	s := startSidecar(t, append(env, "WARMUP_CONTROLLER_URL="+f.srv.URL)...)
	s.waitFor(t, 5*time.Second, "/readyz 200 (fail-open)", func() bool { code, _ := httpGet(s.url("/readyz")); return code == 200 })
	_, status1 := httpGet(s.url("/status"))
	_, metrics1 := httpGet(s.url("/metrics"))
	_ = s.stop(3 * time.Second)
	if !strings.Contains(status1, "HTTP 401") || !strings.Contains(status1, "WARMUP_AUTH_HEADER_FILE") {
		t.Errorf("/status does not say HTTP 401 and which variable to set: %s", status1)
	}

	// Probes refused (custom query: no planning call): the once-logged 401 line
	// and the debug failures.
	s2 := startSidecar(t, append(env, "WARMUP_QUERY=SELECT COUNT(*) FROM orders")...)
	s2.waitFor(t, 5*time.Second, "/readyz 200 (fail-open)", func() bool { code, _ := httpGet(s2.url("/readyz")); return code == 200 })
	_, status2 := httpGet(s2.url("/status"))
	_, metrics2 := httpGet(s2.url("/metrics"))
	_ = s2.stop(3 * time.Second)
	if line := lineWith(s2.logs.String(), "broker refused the probe credentials"); !strings.Contains(line, "WARMUP_AUTH_HEADER_FILE") {
		t.Errorf("no 401 log line naming WARMUP_AUTH_HEADER_FILE:\n%s", tailStr(s2.logs.String(), 2000))
	}

	// The auth file vanishes mid-serve: the error names the file, not its old value.
	s3 := startSidecar(t, append(env, "WARMUP_QUERY=SELECT 1 FROM orders", "WARMUP_BUDGET=2s")...)
	s3.waitFor(t, 5*time.Second, "warming", func() bool { st, _ := s3.status(t); return st.Phase == "warming" })
	_ = os.Remove(file)
	s3.waitFor(t, 5*time.Second, "/readyz 200 (fail-open)", func() bool { code, _ := httpGet(s3.url("/readyz")); return code == 200 })
	_, status3 := httpGet(s3.url("/status"))
	_ = s3.stop(3 * time.Second)
	if err := os.WriteFile(file, []byte(secretWrong), 0o600); err != nil {
		t.Fatal(err)
	}

	outputs := map[string]string{
		"plan-refused logs": s.logs.String(), "plan-refused /status": status1, "plan-refused /metrics": metrics1,
		"probe-refused logs": s2.logs.String(), "probe-refused /status": status2, "probe-refused /metrics": metrics2,
		"file-gone logs": s3.logs.String(), "file-gone /status": status3,
	}
	for _, sub := range []string{"once", "plan"} {
		cmd := exec.Command(binary(t), sub)
		cmd.Env = cleanEnv(append(env, "WARMUP_CONTROLLER_URL="+f.srv.URL)...)
		out, err := cmd.CombinedOutput()
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
			t.Errorf("%s with a refused credential: %v, want exit 1\n%s", sub, err, out)
		}
		outputs[sub+" output"] = string(out)
	}
	for where, text := range outputs {
		noPiece(t, where, text, secretWrong, secretA)
	}
}

// TestSecretEchoedByTheBroker: a proxy or broker error page that echoes request
// headers puts the credential into the broker's own words, which the sidecar
// quotes in /status and logs.
func TestSecretEchoedByTheBroker(t *testing.T) {
	f := newPinotFake(t)
	f.setQuery(func(w http.ResponseWriter, r *http.Request, _ string) {
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprintf(w, "<html><body>400 Bad Request<pre>Authorization: %s</pre></body></html>", r.Header.Get("Authorization"))
	})
	file := filepath.Join(t.TempDir(), "auth")
	if err := os.WriteFile(file, []byte(secretA), 0o600); err != nil {
		t.Fatal(err)
	}
	s := startSidecar(t, "WARMUP_BROKER_URL="+f.srv.URL, "WARMUP_TABLES=orders", "WARMUP_AUTH_HEADER_FILE="+file, "WARMUP_BUDGET=500ms")
	s.waitFor(t, 5*time.Second, "/readyz 200", func() bool { code, _ := httpGet(s.url("/readyz")); return code == 200 })
	_, status := httpGet(s.url("/status"))
	_ = s.stop(3 * time.Second)
	if p := leaked(status+s.logs.String(), strings.TrimPrefix(secretA, "Basic ")); p != "" {
		t.Fatalf("a broker echoing the Authorization header put %q into /status or the logs", p)
	}
}

// lineWith returns the first line of s holding sub, "" when none does.
func lineWith(s, sub string) string {
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			return l
		}
	}
	return ""
}
