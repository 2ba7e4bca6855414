package boost

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/warmup-sidecar/warmup-sidecar/internal/inject/chartvalues"
	"github.com/warmup-sidecar/warmup-sidecar/internal/inject/find"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/kubeapi"
)

// On: brokerCpuBoost.enabled in the values.
func On(values map[string]any) bool {
	on, _ := chartvalues.Lookup(values, "brokerCpuBoost", "enabled").(bool)
	return on
}

// Plan checks brokerCpuBoost against one broker StatefulSet and returns the values
// inject renders the chart with for it: the broker's configured CPU as the target, the
// StatefulSet's name and replicas for the Role, and the ServiceAccount to bind (planServiceAccount,
// whose note it returns). Every refusal names the StatefulSet and what to change; the chart checks
// the same rules for umbrella charts.
func Plan(values map[string]any, t find.Broker, docs []find.Manifest) (map[string]any, string, error) {
	fail := func(format string, a ...any) (map[string]any, string, error) {
		return nil, "", fmt.Errorf("StatefulSet %s: brokerCpuBoost: "+format, append([]any{t.Name}, a...)...)
	}
	if t.Namespace == "" {
		return fail("the StatefulSet has no metadata.namespace, which the Role and RoleBinding need (render the chart with a namespace, as the official chart does)")
	}
	cfg := t.ConfiguredCPU()
	if cfg.Request == "" && cfg.Limit == "" {
		return fail("container %q has no CPU request or limit to give the CPU back to (the official chart's default sets only memory). A broker without a CPU limit is not throttled: the boost would give it nothing. Set broker.resources.limits.cpu (and requests.cpu) in the Pinot chart's values, or turn brokerCpuBoost off", t.Container)
	}
	milli := map[string]int64{}
	for name, q := range map[string]string{"request": cfg.Request, "limit": cfg.Limit} {
		if q == "" {
			continue
		}
		m, err := kubeapi.ParseCPU(q)
		if err != nil {
			return fail("container %q's CPU %s: %v", t.Container, name, err)
		}
		milli[name] = m
	}
	boostReq := quantityValue(chartvalues.Lookup(values, "brokerCpuBoost", "cpu", "request"))
	boostLim := quantityValue(chartvalues.Lookup(values, "brokerCpuBoost", "cpu", "limit"))
	if boostReq == "" && boostLim == "" {
		return fail("set brokerCpuBoost.cpu.limit (and/or cpu.request): the broker container's CPU while boosted")
	}
	effReq, hasReq := milli["request"]
	if !hasReq {
		effReq, hasReq = milli["limit"] // the API server defaults a request to the limit
	}
	lim, hasLim := milli["limit"]
	newReq, newLim := effReq, lim
	if boostLim != "" {
		b, err := kubeapi.ParseCPU(boostLim)
		if err != nil {
			return fail("cpu.limit: %v", err)
		}
		switch {
		case !hasLim:
			return fail("cpu.limit is %s, but container %q has no CPU limit to give back to, and a resize cannot remove one: set broker.resources.limits.cpu in the Pinot chart's values, or boost only brokerCpuBoost.cpu.request", boostLim, t.Container)
		case b <= lim:
			return fail("cpu.limit (%s) is not above container %q's CPU limit (%s): a boost must raise it", boostLim, t.Container, cfg.Limit)
		}
		newLim = b
	}
	if boostReq != "" {
		b, err := kubeapi.ParseCPU(boostReq)
		if err != nil {
			return fail("cpu.request: %v", err)
		}
		switch {
		case !hasReq:
			return fail("cpu.request is %s, but container %q has no CPU request to give back to", boostReq, t.Container)
		case b <= effReq:
			return fail("cpu.request (%s) is not above container %q's CPU request (%s): a boost must raise it", boostReq, t.Container, kubeapi.FormatCPU(effReq))
		}
		newReq = b
	}
	if hasLim && newReq > newLim {
		return fail("the boosted CPU request (%s) would be above the boosted limit (%s): raise brokerCpuBoost.cpu.limit too", kubeapi.FormatCPU(newReq), kubeapi.FormatCPU(newLim))
	}
	if err := keepsQoS(values, t, newReq, newLim, hasLim); err != nil {
		return fail("%v", err)
	}
	target := map[string]any{"request": "", "limit": ""}
	if r, ok := milli["request"]; ok {
		target["request"] = kubeapi.FormatCPU(r)
	}
	if hasLim {
		target["limit"] = kubeapi.FormatCPU(lim)
	}
	boost := map[string]any{"target": target, "statefulSetName": t.Name}
	if asInt(chartvalues.Lookup(values, "brokerCpuBoost", "maxReplicas")) <= 0 {
		boost["maxReplicas"] = max(t.Replicas, 1)
	}
	sa, note, err := planServiceAccount(values, t, docs)
	if err != nil {
		return fail("%v", err)
	}
	if len(sa) > 0 {
		boost["serviceAccount"] = sa
	}
	return boost, note, nil
}

// Overrides are the values a StatefulSet's boost renders with: Plan's, and the
// broker container's name as found (the official chart's, when brokerPodLabels did not match),
// which the sidecar resizes and the admission policy names. It returns Plan's note.
func Overrides(values map[string]any, t find.Broker, docs []find.Manifest, overrides map[string]any) (string, error) {
	boost, note, err := Plan(values, t, docs)
	if err != nil {
		return "", err
	}
	overrides["brokerCpuBoost"] = boost
	overrides["brokerContainerName"] = t.Container
	return note, nil
}

// keepsQoS refuses a boost that would give the pod another QoS class than the give-back does
// (the API server refuses a resize that changes it): with every other container of the pod
// Guaranteed-shaped (the sidecar too), the broker's must be the same boosted and configured.
func keepsQoS(values map[string]any, t find.Broker, newReq, newLim int64, hasLim bool) error {
	side := valuesResources(chartvalues.Lookup(values, "resources"))
	if !guaranteedShape(side) {
		return nil
	}
	for _, r := range t.OtherRes {
		if !guaranteedShape(r) {
			return nil
		}
	}
	after := find.Resources{Requests: copyMap(t.BrokerRes.Requests), Limits: copyMap(t.BrokerRes.Limits)}
	after.Requests["cpu"] = kubeapi.FormatCPU(newReq)
	if hasLim {
		after.Limits["cpu"] = kubeapi.FormatCPU(newLim)
	}
	before := guaranteedShape(t.BrokerRes)
	if before == guaranteedShape(after) {
		return nil
	}
	class := map[bool]string{true: "Guaranteed", false: "Burstable"}
	return fmt.Errorf("the boost would make the pod %s where it is %s (every other container is Guaranteed-shaped), and a resize may not change a pod's QoS class, so the give-back would be refused: %s",
		class[!before], class[before], map[bool]string{
			true:  "boost brokerCpuBoost.cpu.request and cpu.limit to the same value",
			false: "keep the boosted request below the boosted limit",
		}[before])
}

// guaranteedShape: CPU and memory limits, and requests (defaulting to them) equal to them.
func guaranteedShape(r find.Resources) bool {
	for _, name := range []string{"cpu", "memory"} {
		lim := r.Limits[name]
		if lim == "" {
			return false
		}
		req := r.Requests[name]
		if req == "" {
			req = lim
		}
		if !sameQuantity(req, lim) {
			return false
		}
	}
	return true
}

func copyMap(m map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range m {
		out[k] = v
	}
	return out
}

// valuesResources reads the chart's resources value (the sidecar's).
func valuesResources(v any) find.Resources {
	out := find.Resources{Requests: map[string]string{}, Limits: map[string]string{}}
	m, _ := v.(map[string]any)
	for key, dst := range map[string]map[string]string{"requests": out.Requests, "limits": out.Limits} {
		if rm, ok := m[key].(map[string]any); ok {
			for k, q := range rm {
				dst[k] = fmt.Sprint(q)
			}
		}
	}
	return out
}

// Describe is inject's log note for one StatefulSet.
func Describe(boosted Rendered) string {
	if boosted.CPU.Request == "" && boosted.CPU.Limit == "" {
		return ""
	}
	var parts []string
	if boosted.CPU.GiveBackLimit != "" {
		parts = append(parts, "limit "+boosted.CPU.GiveBackLimit+" → "+boosted.CPU.Limit)
	}
	if boosted.CPU.GiveBackRequest != "" {
		parts = append(parts, "request "+boosted.CPU.GiveBackRequest+" → "+boosted.CPU.Request)
	}
	return ", CPU boost " + strings.Join(parts, ", ") + " (given back by ServiceAccount " + boosted.ServiceAccount + ")"
}

// asInt reads a number from coalesced values (decoded from YAML as JSON: float64, or an int
// when set by inject itself).
func asInt(v any) int {
	switch n := v.(type) {
	case int:
		return n
	case int64:
		return int(n)
	case float64:
		return int(n)
	}
	return 0
}

// quantityValue reads a quantity value: text, or a number (cores) as YAML gives `limit: 4`.
func quantityValue(v any) string {
	switch q := v.(type) {
	case string:
		return q
	case float64:
		return strconv.FormatFloat(q, 'f', -1, 64)
	case int:
		return strconv.Itoa(q)
	}
	return ""
}
