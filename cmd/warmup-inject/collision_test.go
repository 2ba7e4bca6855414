package main

import (
	"strings"
	"testing"
)

// brokerCpuBoost's objects go into the stream beside the chart's. One of the chart's own (here
// its ServiceAccount pinot, which every Pinot component runs as) is never replaced: the run
// stops, naming both and what to change. The boost's own objects from an earlier run are
// replaced, so a second run over the output equals the first.
func TestBoostObjectNamedAsTheChartsIsRefused(t *testing.T) {
	// The chart's default broker has no CPU to boost: its rendering with a CPU request and limit.
	in := officialChart(t, "cpu-limits.yaml")
	const boost = "brokerCpuBoost:\n  enabled: true\n  cpu:\n    limit: \"4\"\n  serviceAccount:\n    create: true\n    name: "
	r := runBinary(t, in, "--values", valuesFile(t, boost+"pinot\n"), "--kube-version", "v1.33.0")
	if r.code != 1 || r.stdout != "" {
		t.Fatalf("exit %d, %d bytes on stdout; want exit 1 and nothing (Helm stops). stderr: %s", r.code, len(r.stdout), r.stderr)
	}
	for _, w := range []string{
		"ServiceAccount pinot/pinot",                    // the object, as both name it
		"brokerCpuBoost of StatefulSet pinot-broker",    // where the new one comes from
		"# Source: pinot/templates/serviceaccount.yaml", // where the chart's comes from
		"app.kubernetes.io/name: pinot-broker-warmup",   // why it is not replaced
		"brokerCpuBoost.serviceAccount.name",            // what to change
	} {
		if !strings.Contains(r.stderr, w) {
			t.Errorf("stderr lacks %q:\n%s", w, r.stderr)
		}
	}

	values := valuesFile(t, boost+"pinot-broker-boost\n")
	first := mustRun(t, in, "--values", values, "--kube-version", "v1.33.0")
	var accounts []string
	for _, o := range decodeAll(t, first.stdout) {
		if o.get("kind") == "ServiceAccount" {
			accounts = append(accounts, o.get("metadata", "name").(string))
		}
	}
	if strings.Join(accounts, " ") != "pinot pinot-broker-boost" {
		t.Errorf("ServiceAccounts %v, want the chart's pinot and the boost's", accounts)
	}
	if again := mustRun(t, []byte(first.stdout), "--values", values, "--kube-version", "v1.33.0"); again.stdout != first.stdout {
		t.Error("a second run over the output changed it")
	}
}
