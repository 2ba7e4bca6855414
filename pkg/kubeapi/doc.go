// Package kubeapi is the sidecar's one client of the Kubernetes API: the pod it runs in, read
// (GET pods/<name>) and resized in place (PATCH pods/<name>/resize, Kubernetes ≥ 1.33), with the
// ServiceAccount token the kubelet mounts, re-read for every call (it rotates). A few REST calls
// over net/http, no client-go: the sidecar binary ships in every broker pod and stays small.
//
// Errors name the call and the pod, carry the HTTP status and the API server's reason and
// message (the token masked, the text cut), and never the token itself.
package kubeapi
