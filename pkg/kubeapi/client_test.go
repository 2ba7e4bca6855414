package kubeapi

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"errors"
	"io"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

const testToken = "eyJhbGciOiJSUzI1NiJ9.c2VjcmV0LXNlcnZpY2UtYWNjb3VudC10b2tlbi0xMjM0NQ.c2lnbmF0dXJlLXBhcnQtOTg3NjU0MzIx"

// apiServer is an httptest TLS server standing in for the API server, and the ServiceAccount
// directory a kubelet would mount for it.
type apiServer struct {
	srv *httptest.Server
	dir string

	mu   sync.Mutex
	reqs []seen
}

type seen struct {
	method, path, contentType, auth, body string
}

func newAPIServer(t *testing.T, h http.HandlerFunc) *apiServer {
	t.Helper()
	a := &apiServer{dir: t.TempDir()}
	a.srv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		a.mu.Lock()
		a.reqs = append(a.reqs, seen{r.Method, r.URL.Path, r.Header.Get("Content-Type"), r.Header.Get("Authorization"), string(b)})
		a.mu.Unlock()
		h(w, r)
	}))
	t.Cleanup(a.srv.Close)
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: a.srv.Certificate().Raw})
	writeFile(t, filepath.Join(a.dir, "ca.crt"), string(ca))
	writeFile(t, filepath.Join(a.dir, "token"), testToken+"\n")
	return a
}

func writeFile(t *testing.T, path, s string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(s), 0o600); err != nil {
		t.Fatal(err)
	}
}

func (a *apiServer) client(t *testing.T) *Client {
	t.Helper()
	host, port, _ := net.SplitHostPort(strings.TrimPrefix(a.srv.URL, "https://"))
	env := map[string]string{"KUBERNETES_SERVICE_HOST": host, "KUBERNETES_SERVICE_PORT": port}
	c, err := InCluster(func(k string) string { return env[k] }, a.dir, "pinot", "pinot-broker-0", "warmup-sidecar/test")
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func (a *apiServer) requests() []seen {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]seen(nil), a.reqs...)
}

const podJSON = `{"kind":"Pod","apiVersion":"v1","metadata":{"name":"pinot-broker-0","namespace":"pinot","uid":"u-1",
 "creationTimestamp":"2026-12-04T10:00:00Z"},
 "spec":{"containers":[{"name":"broker","resources":{"requests":{"cpu":"1","memory":"1.25Gi"},"limits":{"cpu":"4"}}},
  {"name":"warmup-sidecar","resources":{"requests":{"cpu":"50m"}}}]},
 "status":{"phase":"Running","startTime":"2026-12-04T10:00:01Z","qosClass":"Burstable",
  "conditions":[{"type":"Ready","status":"False"},{"type":"PodResizePending","status":"True","reason":"Deferred","message":"Node didn't have enough resource: cpu"}],
  "containerStatuses":[{"name":"broker","restartCount":1,"resources":{"requests":{"cpu":"1"},"limits":{"cpu":"4"}}}]}}`

func status(code int, reason, message string) string {
	b, _ := json.Marshal(map[string]any{"kind": "Status", "apiVersion": "v1", "status": "Failure", "reason": reason, "message": message, "code": code})
	return string(b)
}

func TestGetPodReadsSpecStatusAndConditions(t *testing.T) {
	a := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, podJSON) })
	pod, err := a.client(t).GetPod(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	b, ok := pod.Container("broker")
	if req, lim := b.Resources.CPU(); !ok || req != "1" || lim != "4" {
		t.Errorf("broker container %+v", b)
	}
	cs, ok := pod.ContainerStatus("broker")
	if !ok || cs.Resources == nil || cs.Resources.Limits["cpu"] != "4" || cs.RestartCount != 1 {
		t.Errorf("broker status %+v", cs)
	}
	if c, ok := pod.Condition(ConditionResizePending); !ok || c.Reason != ReasonDeferred {
		t.Errorf("PodResizePending %+v %v", c, ok)
	}
	if _, ok := pod.Condition("Ready"); ok {
		t.Error("a False condition read as true")
	}
	if pod.Status.StartTime == nil || !pod.Status.StartTime.Equal(time.Date(2026, 12, 4, 10, 0, 1, 0, time.UTC)) {
		t.Errorf("start time %v", pod.Status.StartTime)
	}
	r := a.requests()
	if len(r) != 1 || r[0].method != "GET" || r[0].path != "/api/v1/namespaces/pinot/pods/pinot-broker-0" || r[0].auth != "Bearer "+testToken {
		t.Errorf("requests %+v", r)
	}
}

// The resize is one strategic merge patch of the container's CPU on the resize subresource:
// only the fields given, the container named (the list merges by name).
func TestResizeCPUPatchesTheResizeSubresource(t *testing.T) {
	a := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, podJSON) })
	c := a.client(t)
	if _, err := c.ResizeCPU(context.Background(), "broker", CPU{Request: "1", Limit: "2"}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ResizeCPU(context.Background(), "broker", CPU{Limit: "2"}); err != nil {
		t.Fatal(err)
	}
	r := a.requests()
	want := []string{
		`{"spec":{"containers":[{"name":"broker","resources":{"limits":{"cpu":"2"},"requests":{"cpu":"1"}}}]}}`,
		`{"spec":{"containers":[{"name":"broker","resources":{"limits":{"cpu":"2"}}}]}}`,
	}
	for i, w := range want {
		if r[i].method != "PATCH" || r[i].path != "/api/v1/namespaces/pinot/pods/pinot-broker-0/resize" ||
			r[i].contentType != "application/strategic-merge-patch+json" || r[i].body != w {
			t.Errorf("request %d: %+v, want body %s", i, r[i], w)
		}
	}
}

// The token is read for every call: a rotated file is used at once.
func TestTokenReReadForEveryCall(t *testing.T) {
	a := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, podJSON) })
	c := a.client(t)
	if _, err := c.GetPod(context.Background()); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(a.dir, "token"), "rotated-token-value")
	if _, err := c.GetPod(context.Background()); err != nil {
		t.Fatal(err)
	}
	if r := a.requests(); r[1].auth != "Bearer rotated-token-value" {
		t.Errorf("second call's Authorization %q", r[1].auth)
	}
}

// Every way a call fails gives an *Error naming the call, classified, and never the token.
func TestErrors(t *testing.T) {
	cases := []struct {
		name      string
		code      int
		body      string
		wantIn    []string
		forbidden bool
		notFound  bool
		permanent bool
	}{
		{"forbidden", 403, status(403, "Forbidden", `pods "pinot-broker-0" is forbidden: User "system:serviceaccount:pinot:pinot" cannot patch resource "pods/resize" in API group "" in the namespace "pinot"`),
			[]string{"resizing container broker of pod pinot/pinot-broker-0: HTTP 403 Forbidden", `cannot patch resource "pods/resize"`}, true, false, true},
		{"not found", 404, status(404, "NotFound", `pods "pinot-broker-0" not found`), []string{"HTTP 404 NotFound", "not found"}, false, true, true},
		{"invalid", 422, status(422, "Invalid", `Pod "pinot-broker-0" is invalid: spec: Invalid value: "Guaranteed": Pod QOS Class may not change as a result of resizing`),
			[]string{"HTTP 422 Invalid", "QOS Class may not change"}, false, false, true},
		{"conflict", 409, status(409, "Conflict", "the object has been modified"), []string{"HTTP 409 Conflict"}, false, false, false},
		{"unauthorized, token echoed", 401, status(401, "Unauthorized", "bad token "+testToken), []string{"HTTP 401 Unauthorized", "bad token [REDACTED]"}, false, false, false},
		{"server error, not a Status", 503, "<html>upstream overloaded " + testToken + "</html>", []string{"HTTP 503: <html>upstream overloaded [REDACTED]</html>"}, false, false, false},
		// A proxy that cut its echo inside the token, and one that shows only its tail.
		{"token cut mid-token", 401, status(401, "Unauthorized", "bad token "+testToken[:30]+"…"), []string{"HTTP 401 Unauthorized", "bad token [REDACTED]…"}, false, false, false},
		{"token tail only", 502, "<html>upstream refused Bearer ..." + testToken[len(testToken)-16:] + " (expired)</html>", []string{"HTTP 502: <html>upstream refused Bearer ...[REDACTED] (expired)</html>"}, false, false, false},
		{"garbage 200", 200, "{not json", []string{"is not a pod"}, false, false, false},
		{"200 without a pod", 200, `{"kind":"Status"}`, []string{"no metadata.name"}, false, false, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(tc.code)
				_, _ = io.WriteString(w, tc.body)
			})
			_, err := a.client(t).ResizeCPU(context.Background(), "broker", CPU{Limit: "2"})
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("err %v (%T), want *Error", err, err)
			}
			for _, w := range tc.wantIn {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
			if p := tokenPiece(err.Error()); p != "" {
				t.Errorf("error carries %q of the token: %q", p, err)
			}
			if e.Forbidden() != tc.forbidden || e.NotFound() != tc.notFound || e.Permanent() != tc.permanent {
				t.Errorf("forbidden %v notFound %v permanent %v", e.Forbidden(), e.NotFound(), e.Permanent())
			}
		})
	}
}

// tokenPiece returns the first run of 8 characters of testToken in text, "".
func tokenPiece(text string) string {
	for i := 0; i+8 <= len(testToken); i++ {
		if strings.Contains(text, testToken[i:i+8]) {
			return testToken[i : i+8]
		}
	}
	return ""
}

func TestLongMessagesAreCutAfterMasking(t *testing.T) {
	long := strings.Repeat("x", 290) + testToken + strings.Repeat("y", 400)
	a := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(500)
		_, _ = io.WriteString(w, status(500, "InternalError", long))
	})
	_, err := a.client(t).GetPod(context.Background())
	if err == nil || strings.Contains(err.Error(), testToken[:4]) || !strings.Contains(err.Error(), "[RED") {
		t.Errorf("error %v: want the token masked then cut", err)
	}
}

// No answer in time: the caller's ctx ends the call, named.
func TestTimeout(t *testing.T) {
	release := make(chan struct{})
	a := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) { <-release })
	defer close(release)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := a.client(t).GetPod(ctx)
	var e *Error
	if !errors.As(err, &e) || e.Status != 0 || !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "getting pod pinot/pinot-broker-0") {
		t.Errorf("err %v", err)
	}
	if time.Since(start) > 5*time.Second {
		t.Errorf("took %s", time.Since(start))
	}
}

func TestAnswerCap(t *testing.T) {
	a := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, strings.Repeat(" ", 2048)+podJSON)
	})
	c := a.client(t)
	c.MaxBytes = 1024
	if _, err := c.GetPod(context.Background()); err == nil || !strings.Contains(err.Error(), "larger than 1024 bytes") {
		t.Errorf("err %v", err)
	}
}

func TestTokenProblemsNameTheFileNotTheContent(t *testing.T) {
	a := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, podJSON) })
	c := a.client(t)
	writeFile(t, c.TokenFile, "  \n")
	if _, err := c.GetPod(context.Background()); err == nil || !strings.Contains(err.Error(), "is empty") {
		t.Errorf("empty token: %v", err)
	}
	_ = os.Remove(c.TokenFile)
	if _, err := c.GetPod(context.Background()); err == nil || !strings.Contains(err.Error(), "reading the ServiceAccount token") {
		t.Errorf("no token: %v", err)
	}
	if len(a.requests()) != 0 {
		t.Error("a call went out without a token")
	}
}

func TestInClusterNeedsTheServiceEnvAndTheCA(t *testing.T) {
	dir := t.TempDir()
	env := map[string]string{"KUBERNETES_SERVICE_HOST": "10.96.0.1", "KUBERNETES_SERVICE_PORT": "443"}
	get := func(k string) string { return env[k] }
	if _, err := InCluster(func(string) string { return "" }, dir, "ns", "p", ""); err == nil || !strings.Contains(err.Error(), "KUBERNETES_SERVICE_HOST") {
		t.Errorf("no env: %v", err)
	}
	if _, err := InCluster(get, dir, "ns", "p", ""); err == nil || !strings.Contains(err.Error(), "ca.crt") {
		t.Errorf("no CA: %v", err)
	}
	writeFile(t, filepath.Join(dir, "ca.crt"), "not a certificate")
	if _, err := InCluster(get, dir, "ns", "p", ""); err == nil || !strings.Contains(err.Error(), "no PEM certificate") {
		t.Errorf("bad CA: %v", err)
	}
}

// A server whose certificate the cluster CA did not sign is refused.
func TestUnknownCertificateRefused(t *testing.T) {
	a := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, podJSON) })
	// Another CA than the server's (every httptest server shares one certificate).
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "other-ca"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IsCA: true, BasicConstraintsValid: true}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(a.dir, "ca.crt"), string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})))
	if _, err := a.client(t).GetPod(context.Background()); err == nil || !strings.Contains(err.Error(), "certificate") {
		t.Errorf("err %v", err)
	}
	if len(a.requests()) != 0 {
		t.Error("the request reached a server the CA does not vouch for")
	}
}
