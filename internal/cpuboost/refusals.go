package cpuboost

import (
	"errors"
	"strings"

	"github.com/warmup-sidecar/warmup-sidecar/pkg/kubeapi"
)

// rbacHint is what a refused call tells the operator to grant.
const rbacHint = "the sidecar's ServiceAccount needs get on pods and patch on pods/resize for this pod (the Role the chart renders with brokerCpuBoost)"

// refused says why the API server refused a call, a read of the pod or (resize) the resize,
// or "" for an error worth retrying at once (no answer, 409, 429, 5xx, an expired token). A
// refusal gets the same answer on a quick retry: the call is made again at the slow pace (a
// Role or an admission policy fixed later). podRead tells a 404 on the resize subresource
// (Kubernetes < 1.33) from one on the pod.
func refused(err error, resize, podRead bool) string {
	var ae *kubeapi.Error
	if !errors.As(err, &ae) {
		return ""
	}
	verb, call := "read", "reading the pod"
	if resize {
		verb, call = "resize", "the resize"
	}
	switch {
	case ae.Forbidden() && rbacDenial(ae):
		return "no permission to " + verb + " the pod: " + rbacHint + ": " + err.Error()
	case ae.Forbidden():
		// An admission plugin's refusal (a node the API server does not know, a policy), not RBAC's.
		return "the API server forbade " + call + ": " + err.Error()
	case ae.NotFound() && resize && podRead:
		return "the API server has no resize subresource for this pod (in-place resize needs Kubernetes 1.33 or later, InPlacePodVerticalScaling): " + err.Error()
	case ae.NotFound():
		return "the pod was not found: WARMUP_POD_NAME and WARMUP_POD_NAMESPACE must name it (the downward API's metadata.name and metadata.namespace): " + err.Error()
	case ae.Permanent():
		return "the API server refused " + call + ": " + err.Error()
	}
	return ""
}

// rbacDenial: a 403 from the authorizer, whose message reads `User "…" cannot patch resource
// "pods/resize" …`; an admission plugin's 403 reads otherwise.
func rbacDenial(e *kubeapi.Error) bool {
	return strings.Contains(e.Message, "cannot ") && strings.Contains(e.Message, "resource ")
}
