package edit

import (
	"encoding/json"
	"fmt"
	"strconv"

	yaml "go.yaml.in/yaml/v3"

	"github.com/warmup-sidecar/warmup-sidecar/internal/inject/chartvalues"
	"github.com/warmup-sidecar/warmup-sidecar/internal/inject/find"
	"github.com/warmup-sidecar/warmup-sidecar/internal/inject/yamlnode"
)

// brokerReadiness.decidedBy: sidecar lets the sidecar's verdict decide when a broker pod enters
// its Service. The official chart's broker readinessProbe waits initialDelaySeconds (60 s) and its
// template cannot render 0 (`{{ .Values.broker.probes.readiness.initialDelaySeconds | default
// .Values.probes.initialDelaySeconds }}`: 0 is "unset" to `default`, so 60 comes back), and a
// startupProbe holds the readiness probe back until it passes. So the post-renderer starts them
// itself. The broker's /health check stays: the pod is Ready only when both containers are, and the
// kubelet still asks the broker. The livenessProbe is left alone: it restarts the broker, and a
// cold JVM slow to answer /health must not be killed sooner than the chart allows. auto, the
// default, resolves to sidecar or chart per broker (decidedby.go) before this runs.
//
// The rule is the chart's (templates/_readiness.tpl, pinot-broker-warmup.gatedProbe, which the
// umbrella path and the sidecar's own probe use); a test holds the two equal.

// Kubernetes' defaults for a probe's omitted fields.
const (
	defaultProbeDelay    = 0
	defaultProbePeriod   = 10
	defaultProbeFailures = 3
)

// probeTiming is what of a probe the rule reads and writes, in seconds and probes.
type probeTiming struct {
	delay, period, failures int
}

// gatedTiming is a probe's timing when the sidecar decides readiness: no initial delay, sampled
// every period seconds (a probe already faster keeps its own), and failureThreshold raised so that
// a failure must last as long as before: period × failureThreshold kept for a readiness probe (the
// time a Ready pod stays in on failures), initialDelaySeconds + period × failureThreshold for a
// startup probe (the time the broker has to turn healthy before a restart), rounded up. A second
// application changes nothing.
func gatedTiming(old probeTiming, period int, startup bool) probeTiming {
	p := min(old.period, period)
	window := old.period * old.failures
	if startup {
		window += old.delay
	}
	return probeTiming{delay: 0, period: p, failures: (window + p - 1) / p}
}

// gatedPeriod is brokerReadiness.periodSeconds when the sidecar decides (by, decidedBy resolved
// for the broker), else 0.
func gatedPeriod(values map[string]any, by string) int {
	if by != decidedBySidecar {
		return 0
	}
	p, _ := wholeNumber(chartvalues.Lookup(values, "brokerReadiness", "periodSeconds"))
	return p
}

// wholeNumber reads an integer from decoded values (YAML files decode numbers as float64).
func wholeNumber(v any) (int, bool) {
	switch n := v.(type) {
	case int:
		return n, true
	case int64:
		return int(n), true
	case float64:
		return int(n), n == float64(int(n))
	case json.Number:
		i, err := n.Int64()
		return int(i), err == nil
	}
	return 0, false
}

// GateBrokerProbes rewrites the broker container's readinessProbe and startupProbe by the rule,
// when the sidecar decides (by, decidedBy resolved for this broker). Reports whether the document
// changed and, for a log line, what it did (empty when the chart's probes stay).
func GateBrokerProbes(stsRoot *yaml.Node, t find.Broker, values map[string]any, by string) (bool, string, error) {
	period := gatedPeriod(values, by)
	if period <= 0 {
		return false, "", nil
	}
	broker := yamlnode.NamedEntry(yamlnode.At(stsRoot, "spec", "template", "spec", "containers"), t.Container)
	changed := false
	var gated []string
	for _, pr := range []struct {
		key     string
		startup bool
	}{{"readinessProbe", false}, {"startupProbe", true}} {
		probe := yamlnode.MapValue(broker, pr.key)
		if probe == nil || probe.Kind != yaml.MappingNode {
			continue
		}
		c, err := gateProbe(probe, period, pr.startup)
		if err != nil {
			return false, "", fmt.Errorf("brokerReadiness.decidedBy sidecar: StatefulSet %s, container %q, %s.%w", t.Name, t.Container, pr.key, err)
		}
		changed = changed || c
		gated = append(gated, pr.key)
	}
	if len(gated) == 0 {
		return false, "brokerReadiness.decidedBy sidecar: the broker container has no readinessProbe or startupProbe to start earlier", nil
	}
	what := gated[0]
	if len(gated) == 2 {
		what += " and " + gated[1]
	}
	return changed, fmt.Sprintf("brokerReadiness.decidedBy sidecar: the broker's %s start at once, every %ds or faster; livenessProbe unchanged", what, period), nil
}

// gateProbe applies gatedTiming to one probe node, keeping its other fields (the check, timeout,
// successThreshold) and key order. An omitted field is written only when the rule changes it
// from Kubernetes' default. An error starts with the field's name (the caller prefixes the probe).
func gateProbe(probe *yaml.Node, period int, startup bool) (bool, error) {
	var old probeTiming
	var err error
	if old.delay, err = probeField(probe, "initialDelaySeconds", defaultProbeDelay); err != nil {
		return false, err
	}
	if old.period, err = probeField(probe, "periodSeconds", defaultProbePeriod); err != nil {
		return false, err
	}
	if old.failures, err = probeField(probe, "failureThreshold", defaultProbeFailures); err != nil {
		return false, err
	}
	if old.period < 1 || old.failures < 1 {
		return false, fmt.Errorf("periodSeconds %d, failureThreshold %d: want both at least 1 (as Kubernetes does)", old.period, old.failures)
	}
	nt := gatedTiming(old, period, startup)
	changed := false
	for _, f := range []struct {
		key        string
		val, deflt int
	}{
		{"initialDelaySeconds", nt.delay, defaultProbeDelay},
		{"periodSeconds", nt.period, defaultProbePeriod},
		{"failureThreshold", nt.failures, defaultProbeFailures},
	} {
		if setIntField(probe, f.key, f.val, f.deflt) {
			changed = true
		}
	}
	return changed, nil
}

// probeField reads an integer field of a probe, deflt when omitted.
func probeField(probe *yaml.Node, key string, deflt int) (int, error) {
	v := yamlnode.MapValue(probe, key)
	if v == nil || (v.Kind == yaml.ScalarNode && v.Tag == "!!null") {
		return deflt, nil
	}
	n, err := strconv.Atoi(v.Value)
	if v.Kind != yaml.ScalarNode || err != nil || n < 0 {
		return 0, fmt.Errorf("%s is %q: want a whole number of seconds or probes", key, v.Value)
	}
	return n, nil
}

// setIntField sets key to val in a mapping: in place when present, appended when absent and val
// is not the default the omission means. Reports whether the mapping changed.
func setIntField(m *yaml.Node, key string, val, deflt int) bool {
	text := strconv.Itoa(val)
	if v := yamlnode.MapValue(m, key); v != nil {
		if v.Kind == yaml.ScalarNode && v.Value == text && v.Tag == "!!int" {
			return false
		}
		*v = yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: text}
		return true
	}
	if val == deflt {
		return false
	}
	m.Content = append(m.Content,
		&yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key},
		&yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: text})
	return true
}
