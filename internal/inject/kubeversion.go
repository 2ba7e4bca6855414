package inject

import (
	"fmt"

	"github.com/warmup-sidecar/warmup-sidecar/internal/inject/boost"
	"github.com/warmup-sidecar/warmup-sidecar/internal/inject/chartvalues"
	"github.com/warmup-sidecar/warmup-sidecar/internal/inject/render"
)

// checkKubeVersion: native-sidecar mode needs Kubernetes >= 1.29 and brokerCpuBoost >= 1.33 (in-place
// pod resize), which the chart checks against .Capabilities; a post-renderer gets no version from
// Helm, so the operator must give it (Helm shows a post-renderer's stderr only on failure: a
// warning would never be seen). The default mode, a regular container, needs none.
func checkKubeVersion(r *render.Renderer, kubeVersion string) error {
	if !r.Enabled() || kubeVersion != "" {
		return nil
	}
	const give = "give the cluster's version with --kube-version (helm ... --post-renderer-args --kube-version=v1.33.0; kubectl version shows it)"
	if native, _ := chartvalues.Lookup(r.Values(), "nativeSidecar").(bool); native {
		return fmt.Errorf("%s: nativeSidecar is true, which needs Kubernetes >= 1.29, and a post-renderer cannot ask the cluster: %s, or set nativeSidecar: false",
			render.DescribeFiles(r.Files()), give)
	}
	if boost.On(r.Values()) {
		return fmt.Errorf("%s: brokerCpuBoost is on, which needs Kubernetes >= 1.33 (in-place pod resize), and a post-renderer cannot ask the cluster: %s, or set brokerCpuBoost.enabled: false",
			render.DescribeFiles(r.Files()), give)
	}
	return nil
}
