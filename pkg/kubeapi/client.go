package kubeapi

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/warmup-sidecar/warmup-sidecar/pkg/redact"
)

// DefaultServiceAccountDir is where the kubelet mounts a pod's ServiceAccount token and the
// cluster CA.
const DefaultServiceAccountDir = "/var/run/secrets/kubernetes.io/serviceaccount"

// DefaultMaxBytes caps an answer: a pod object is tens of kB; managed fields can grow it.
const DefaultMaxBytes = 4 << 20

// Client reads and resizes one pod. Its fields are set once; it is safe for concurrent use.
type Client struct {
	// BaseURL is the API server: https://host:port.
	BaseURL string
	// TokenFile holds the bearer token, re-read for every call (the kubelet rotates it).
	TokenFile string
	// HTTP carries the cluster CA; the caller's ctx bounds each call.
	HTTP *http.Client
	// Namespace and Pod name the pod.
	Namespace, Pod string
	UserAgent      string
	// MaxBytes caps an answer; 0: DefaultMaxBytes.
	MaxBytes int64
}

// InCluster is a client for the pod the process runs in: the API server from the
// KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT the kubelet sets, the token and CA from
// dir (DefaultServiceAccountDir in a pod). getenv is os.Getenv in the binary.
func InCluster(getenv func(string) string, dir, namespace, pod, userAgent string) (*Client, error) {
	host, port := getenv("KUBERNETES_SERVICE_HOST"), getenv("KUBERNETES_SERVICE_PORT")
	if host == "" || port == "" {
		return nil, errors.New("KUBERNETES_SERVICE_HOST or KUBERNETES_SERVICE_PORT is unset: the kubelet sets both in a pod, so this is not running in one")
	}
	caFile := filepath.Join(dir, "ca.crt")
	pem, err := os.ReadFile(caFile)
	if err != nil {
		return nil, fmt.Errorf("reading the cluster CA: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("reading the cluster CA %s: no PEM certificate in it", caFile)
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.TLSClientConfig = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	return &Client{
		BaseURL:   "https://" + net.JoinHostPort(host, port),
		TokenFile: filepath.Join(dir, "token"),
		HTTP:      &http.Client{Transport: tr},
		Namespace: namespace, Pod: pod, UserAgent: userAgent,
	}, nil
}

// Error is a call that failed: a transport error (Status 0), or the API server's answer.
type Error struct {
	// Op says what was being done: "getting pod ns/name", "resizing pod ns/name".
	Op string
	// Status is the HTTP status (0: no answer); Reason the Status object's reason (Forbidden,
	// NotFound, Invalid, Conflict, ...); Message its message, the token masked (pkg/redact),
	// cut to 300 bytes.
	Status  int
	Reason  string
	Message string
	Err     error
}

func (e *Error) Error() string {
	if e.Status == 0 {
		return fmt.Sprintf("%s: %v", e.Op, e.Err)
	}
	s := fmt.Sprintf("%s: HTTP %d", e.Op, e.Status)
	if e.Reason != "" {
		s += " " + e.Reason
	}
	if e.Message != "" {
		s += ": " + e.Message
	}
	return s
}

func (e *Error) Unwrap() error { return e.Err }

// Forbidden: the token's identity lacks the right (RBAC). Retrying does not help.
func (e *Error) Forbidden() bool { return e.Status == http.StatusForbidden }

// NotFound: no such pod (or, for a resize, no resize subresource: Kubernetes < 1.33).
func (e *Error) NotFound() bool { return e.Status == http.StatusNotFound }

// Permanent: the request itself is refused (400, 403, 404, 405, 415, 422); the same request
// again gets the same answer.
func (e *Error) Permanent() bool {
	switch e.Status {
	case http.StatusBadRequest, http.StatusForbidden, http.StatusNotFound, http.StatusMethodNotAllowed,
		http.StatusUnsupportedMediaType, http.StatusUnprocessableEntity:
		return true
	}
	return false
}

func (c *Client) podPath() string {
	return "/api/v1/namespaces/" + url.PathEscape(c.Namespace) + "/pods/" + url.PathEscape(c.Pod)
}

func (c *Client) name() string { return c.Namespace + "/" + c.Pod }

// GetPod reads the pod.
func (c *Client) GetPod(ctx context.Context) (Pod, error) {
	return c.do(ctx, "getting pod "+c.name(), http.MethodGet, c.podPath(), "", nil)
}

// CPU is a container's CPU to set by a resize: an empty field is left as it is.
type CPU struct {
	Request, Limit string
}

// ResizeCPU asks the API server to set container's CPU request and limit through the pod's
// resize subresource (a strategic merge patch: the container by name, the other resources and
// containers untouched) and returns the pod as the API server stored it. The kubelet applies
// it afterwards: the pod's status says when.
func (c *Client) ResizeCPU(ctx context.Context, container string, cpu CPU) (Pod, error) {
	res := map[string]map[string]string{}
	if cpu.Request != "" {
		res["requests"] = map[string]string{"cpu": cpu.Request}
	}
	if cpu.Limit != "" {
		res["limits"] = map[string]string{"cpu": cpu.Limit}
	}
	patch := map[string]any{"spec": map[string]any{"containers": []any{
		map[string]any{"name": container, "resources": res},
	}}}
	body, err := json.Marshal(patch)
	if err != nil {
		return Pod{}, err
	}
	op := fmt.Sprintf("resizing container %s of pod %s", container, c.name())
	return c.do(ctx, op, http.MethodPatch, c.podPath()+"/resize", "application/strategic-merge-patch+json", body)
}

func (c *Client) do(ctx context.Context, op, method, path, contentType string, body []byte) (Pod, error) {
	fail := func(err error) (Pod, error) { return Pod{}, &Error{Op: op, Err: err} }
	token, err := c.token()
	if err != nil {
		return fail(err)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.BaseURL+path, bytes.NewReader(body))
	if err != nil {
		return fail(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Accept", "application/json")
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	if c.UserAgent != "" {
		req.Header.Set("User-Agent", c.UserAgent)
	}
	hc := c.HTTP
	if hc == nil {
		hc = http.DefaultClient
	}
	resp, err := hc.Do(req)
	if err != nil {
		return fail(err)
	}
	defer resp.Body.Close()
	limit := c.MaxBytes
	if limit <= 0 {
		limit = DefaultMaxBytes
	}
	raw, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return fail(fmt.Errorf("reading the answer (HTTP %d): %w", resp.StatusCode, err))
	}
	if int64(len(raw)) > limit {
		return fail(fmt.Errorf("answer (HTTP %d) larger than %d bytes", resp.StatusCode, limit))
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return Pod{}, apiError(op, resp.StatusCode, raw, token)
	}
	var pod Pod
	if err := json.Unmarshal(raw, &pod); err != nil {
		return fail(fmt.Errorf("answer (HTTP %d) is not a pod: %v", resp.StatusCode, err))
	}
	if pod.Metadata.Name == "" {
		return fail(fmt.Errorf("answer (HTTP %d) is not a pod: no metadata.name", resp.StatusCode))
	}
	return pod, nil
}

// token reads the bearer token. Its content never reaches an error: only the file's path.
func (c *Client) token() (string, error) {
	b, err := os.ReadFile(c.TokenFile)
	if err != nil {
		return "", fmt.Errorf("reading the ServiceAccount token: %w", err)
	}
	t := strings.TrimSpace(string(b))
	if t == "" {
		return "", fmt.Errorf("the ServiceAccount token file %s is empty", c.TokenFile)
	}
	return t, nil
}

// maxMessage is how much of the API server's message an error keeps.
const maxMessage = 300

// apiError reads the API server's Status object; an answer that is not one is described by
// its status alone, with its first words.
func apiError(op string, code int, raw []byte, token string) *Error {
	e := &Error{Op: op, Status: code}
	var st struct {
		Kind    string `json:"kind"`
		Reason  string `json:"reason"`
		Message string `json:"message"`
	}
	msg := string(raw)
	if json.Unmarshal(raw, &st) == nil && st.Kind == "Status" {
		e.Reason, msg = st.Reason, st.Message
	}
	// The token is masked (redact.Header: any 4 of its leading characters, any 8
	// from anywhere, escaped or wrapped) before the fold and the cut, so neither
	// can leave a piece of it: an echo the server or a proxy cut inside the
	// token, or one that shows only its tail, is masked too.
	msg = redact.New(redact.Header("Bearer " + token)...).Mask(strings.ToValidUTF8(msg, "\uFFFD"))
	msg = strings.Join(strings.Fields(msg), " ")
	if len(msg) > maxMessage {
		msg = strings.ToValidUTF8(msg[:maxMessage], "") + "…"
	}
	e.Message = msg
	return e
}
