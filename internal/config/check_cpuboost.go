package config

import (
	"fmt"
	"path/filepath"
	"regexp"

	"github.com/warmup-sidecar/warmup-sidecar/pkg/kubeapi"
)

var (
	// dnsLabel is a Kubernetes container or namespace name (RFC 1123 label).
	dnsLabel = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$`)
	// dnsSubdomain is a pod name (RFC 1123 subdomain).
	dnsSubdomain = regexp.MustCompile(`^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$`)
)

// checkCPUBoost validates the boost's variables: each value whenever it is set, and with
// WARMUP_CPU_BOOST_ENABLED=true what the give-back needs (the pod's identity, a target).
func (c Config) checkCPUBoost() error {
	milli := map[string]int64{}
	for _, q := range []struct{ name, value string }{
		{"WARMUP_CPU_BOOST_TARGET_REQUEST", c.CPUBoostTargetRequest},
		{"WARMUP_CPU_BOOST_TARGET_LIMIT", c.CPUBoostTargetLimit},
	} {
		if q.value == "" {
			continue
		}
		m, err := kubeapi.ParseCPU(q.value)
		if err != nil || m == 0 {
			return fmt.Errorf("%s=%q: expected the broker container's CPU to give back to, a quantity above 0 such as 500m, 1 or 1.5", q.name, q.value)
		}
		milli[q.name] = m
	}
	req, hasReq := milli["WARMUP_CPU_BOOST_TARGET_REQUEST"]
	lim, hasLim := milli["WARMUP_CPU_BOOST_TARGET_LIMIT"]
	if hasReq && hasLim && req > lim {
		return fmt.Errorf("WARMUP_CPU_BOOST_TARGET_REQUEST=%q: expected at most WARMUP_CPU_BOOST_TARGET_LIMIT (%q): a request above its limit is invalid", c.CPUBoostTargetRequest, c.CPUBoostTargetLimit)
	}
	if !dnsLabel.MatchString(c.CPUBoostContainer) {
		return fmt.Errorf("WARMUP_CPU_BOOST_CONTAINER=%q: expected the broker container's name, such as broker", c.CPUBoostContainer)
	}
	if c.CPUBoostMaxDuration <= 0 {
		return fmt.Errorf("WARMUP_CPU_BOOST_MAX_DURATION=%q: expected a positive duration such as 10m", c.CPUBoostMaxDuration)
	}
	if c.CPUBoostSettle < 0 {
		return fmt.Errorf("WARMUP_CPU_BOOST_SETTLE=%q: expected a duration of 0 or more, such as 60s", c.CPUBoostSettle)
	}
	if c.PodName != "" && !dnsSubdomain.MatchString(c.PodName) {
		return fmt.Errorf("WARMUP_POD_NAME=%q: expected a pod name, from the downward API (fieldRef metadata.name)", c.PodName)
	}
	if c.PodNamespace != "" && !dnsLabel.MatchString(c.PodNamespace) {
		return fmt.Errorf("WARMUP_POD_NAMESPACE=%q: expected a namespace name, from the downward API (fieldRef metadata.namespace)", c.PodNamespace)
	}
	if dir := c.KubeServiceAccountDir; !filepath.IsAbs(dir) {
		// A token set here by mistake is itself the secret: shown only when plainly a path.
		if !plainPath(dir) {
			return fmt.Errorf("WARMUP_KUBE_SERVICE_ACCOUNT_DIR: expected an absolute path to the pod's ServiceAccount token and CA, such as %s; the value is not shown: it does not look like a path and may be a token", kubeapi.DefaultServiceAccountDir)
		}
		return fmt.Errorf("WARMUP_KUBE_SERVICE_ACCOUNT_DIR=%q: expected an absolute path to the pod's ServiceAccount token and CA, such as %s", dir, kubeapi.DefaultServiceAccountDir)
	}
	if !c.CPUBoostEnabled {
		return nil
	}
	if !hasReq && !hasLim {
		return fmt.Errorf("WARMUP_CPU_BOOST_TARGET_LIMIT is empty: expected the broker container's CPU limit (or WARMUP_CPU_BOOST_TARGET_REQUEST, its request) to give back to when WARMUP_CPU_BOOST_ENABLED is true")
	}
	if c.PodName == "" {
		return fmt.Errorf("WARMUP_POD_NAME is empty: expected the pod's name, from the downward API (fieldRef metadata.name), when WARMUP_CPU_BOOST_ENABLED is true")
	}
	if c.PodNamespace == "" {
		return fmt.Errorf("WARMUP_POD_NAMESPACE is empty: expected the pod's namespace, from the downward API (fieldRef metadata.namespace), when WARMUP_CPU_BOOST_ENABLED is true")
	}
	return nil
}
