// Package fakekube is a stand-in for the Kubernetes API server, for tests: one pod served on
// GET and resized by PATCH on its resize subresource (a strategic merge patch of container
// resources, as the real API server applies it), over TLS on loopback, with the
// ServiceAccount directory (token, ca.crt) a kubelet would mount for it. Optionally a
// kubelet that applies each resize to the pod's status, and refusals to play.
package fakekube

import (
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/warmup-sidecar/warmup-sidecar/pkg/kubeapi"
)

// Server is the fake API server.
type Server struct {
	srv   *httptest.Server
	dir   string
	token string

	mu      sync.Mutex
	pod     kubeapi.Pod
	kubelet bool
	refuse  *refusal
	// refuseGets answers that many reads of the pod with getRefusal before letting them through.
	refuseGets int
	getRefusal refusal
	gets       int      // reads of the pod received
	resizes    []string // each resize request's body
	auths      []string // each request's Authorization header
}

type refusal struct {
	code            int
	reason, message string
}

// New serves pod with token as the only credential it accepts. Close it when done.
func New(pod kubeapi.Pod, token string) (*Server, error) {
	s := &Server{pod: pod, token: token}
	s.srv = httptest.NewTLSServer(http.HandlerFunc(s.serve))
	dir, err := os.MkdirTemp("", "fakekube-sa")
	if err != nil {
		s.srv.Close()
		return nil, err
	}
	s.dir = dir
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: s.srv.Certificate().Raw})
	if err := os.WriteFile(filepath.Join(dir, "ca.crt"), ca, 0o644); err != nil {
		s.Close()
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, "token"), []byte(token), 0o644); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// Close stops the server and removes its ServiceAccount directory.
func (s *Server) Close() {
	s.srv.Close()
	if s.dir != "" {
		_ = os.RemoveAll(s.dir)
	}
}

// Dir is the ServiceAccount directory: token and ca.crt.
func (s *Server) Dir() string { return s.dir }

// Env is what the kubelet tells a pod of the API server: KUBERNETES_SERVICE_HOST and _PORT.
func (s *Server) Env() []string {
	host, port, _ := net.SplitHostPort(strings.TrimPrefix(s.srv.URL, "https://"))
	return []string{"KUBERNETES_SERVICE_HOST=" + host, "KUBERNETES_SERVICE_PORT=" + port}
}

// Kubelet makes every accepted resize appear in the pod's status at once, as a kubelet that
// applied it reports.
func (s *Server) Kubelet(on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.kubelet = on
}

// RefuseResizes answers every resize with the status, a Kubernetes Status object carrying
// reason and message.
func (s *Server) RefuseResizes(code int, reason, message string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.refuse = &refusal{code, reason, message}
}

// RefuseGets answers the next n reads of the pod with the status (a Role not yet propagated),
// then lets them through.
func (s *Server) RefuseGets(n, code int, reason, message string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.refuseGets, s.getRefusal = n, refusal{code, reason, message}
}

// Gets is how many reads of the pod were received, refused or not.
func (s *Server) Gets() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.gets
}

// Pod is the pod as stored now.
func (s *Server) Pod() kubeapi.Pod {
	s.mu.Lock()
	defer s.mu.Unlock()
	b, _ := json.Marshal(s.pod)
	var p kubeapi.Pod
	_ = json.Unmarshal(b, &p)
	return p
}

// Resizes are the bodies of the resize requests received.
func (s *Server) Resizes() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.resizes...)
}

// Authorizations are the Authorization headers received, in order.
func (s *Server) Authorizations() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.auths...)
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.auths = append(s.auths, r.Header.Get("Authorization"))
	if r.Header.Get("Authorization") != "Bearer "+s.token {
		writeStatus(w, http.StatusUnauthorized, "Unauthorized", "Unauthorized")
		return
	}
	path := fmt.Sprintf("/api/v1/namespaces/%s/pods/%s", s.pod.Metadata.Namespace, s.pod.Metadata.Name)
	switch {
	case r.Method == http.MethodGet && r.URL.Path == path:
		s.gets++
		if s.refuseGets > 0 {
			s.refuseGets--
			writeStatus(w, s.getRefusal.code, s.getRefusal.reason, s.getRefusal.message)
			return
		}
		_ = json.NewEncoder(w).Encode(s.pod)
	case r.Method == http.MethodPatch && r.URL.Path == path+"/resize":
		body, _ := io.ReadAll(r.Body)
		s.resizes = append(s.resizes, string(body))
		if s.refuse != nil {
			writeStatus(w, s.refuse.code, s.refuse.reason, s.refuse.message)
			return
		}
		if r.Header.Get("Content-Type") != "application/strategic-merge-patch+json" {
			writeStatus(w, http.StatusUnsupportedMediaType, "UnsupportedMediaType", "the body of the request was in an unknown format")
			return
		}
		if err := s.apply(body); err != nil {
			writeStatus(w, http.StatusUnprocessableEntity, "Invalid", err.Error())
			return
		}
		_ = json.NewEncoder(w).Encode(s.pod)
	default:
		writeStatus(w, http.StatusNotFound, "NotFound", "the server could not find the requested resource")
	}
}

// apply merges the patch's container resources into the spec by container name (under mu).
func (s *Server) apply(body []byte) error {
	var patch struct {
		Spec struct {
			Containers []kubeapi.Container `json:"containers"`
		} `json:"spec"`
	}
	if err := json.Unmarshal(body, &patch); err != nil {
		return fmt.Errorf("decoding the patch: %v", err)
	}
	for _, pc := range patch.Spec.Containers {
		found := false
		for i := range s.pod.Spec.Containers {
			c := &s.pod.Spec.Containers[i]
			if c.Name != pc.Name {
				continue
			}
			found = true
			merge(&c.Resources.Requests, pc.Resources.Requests)
			merge(&c.Resources.Limits, pc.Resources.Limits)
			if s.kubelet {
				s.report(c)
			}
		}
		if !found {
			return fmt.Errorf("spec.containers[%s]: not found", pc.Name)
		}
	}
	return nil
}

func merge(dst *map[string]string, src map[string]string) {
	if len(src) == 0 {
		return
	}
	if *dst == nil {
		*dst = map[string]string{}
	}
	for k, v := range src {
		(*dst)[k] = v
	}
}

// report writes c's resources as the container's applied ones (under mu).
func (s *Server) report(c *kubeapi.Container) {
	b, _ := json.Marshal(c.Resources)
	var r kubeapi.Resources
	_ = json.Unmarshal(b, &r)
	for i := range s.pod.Status.ContainerStatuses {
		if s.pod.Status.ContainerStatuses[i].Name == c.Name {
			s.pod.Status.ContainerStatuses[i].Resources = &r
			return
		}
	}
	s.pod.Status.ContainerStatuses = append(s.pod.Status.ContainerStatuses, kubeapi.ContainerStatus{Name: c.Name, Resources: &r})
}

func writeStatus(w http.ResponseWriter, code int, reason, message string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(map[string]any{"kind": "Status", "apiVersion": "v1", "status": "Failure", "reason": reason, "message": message, "code": code})
}
