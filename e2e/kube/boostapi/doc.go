// Package boostapi checks the CPU boost's Kubernetes side against the test bed's real API
// server (-tags kube): the RBAC warmup-inject renders, asked of the API server's authorizer, and
// the sidecar's REST calls (pkg/kubeapi, internal/cpuboost) on a real pod object through the
// real resize subresource. No kubelet runs here: the pod is bound to a node by name, and the
// test writes the kubelet's report itself where one is needed.
package boostapi
