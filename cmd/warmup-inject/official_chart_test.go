package main

import (
	"strings"
	"testing"
)

// The built binary on the official Pinot chart rendered with the values that once fooled it
// (issue 34): each case is a rendering in testdata/pinot-helm, and scripts/check-packaging.sh
// renders the same values live from the chart and runs the same checks.

const aotUse = `brokerJvm:
  aotCache:
    enabled: true
    volume:
      persistentVolumeClaim: {claimName: pinot-broker-aot}
`

// The chart's image, apachepinot/pinot:latest, made a cache key.
var aotOptions = []string{
	"-XX:AOTCache=/var/lib/pinot-aot/apachepinot-pinot-latest.aot",
	"-Xlog:aot=info,cds=info:file=/var/log/pinot-aot/aot.log",
}

// broker.extraEnv's JAVA_OPTS comes after the chart's own, and the kubelet gives the container
// the last entry of a name: that entry gets the options; the chart's, shadowed, stays as rendered.
func TestExtraEnvJavaOptsIsTheOneEdited(t *testing.T) {
	in := officialChart(t, "extraenv-javaopts.yaml")
	before := envEntries(container(statefulSet(t, decodeAll(t, string(in)), "pinot-broker"), "containers", "broker"), "JAVA_OPTS")
	if len(before) != 2 {
		t.Fatalf("fixture: %d JAVA_OPTS entries in the broker container, want the chart's and broker.extraEnv's", len(before))
	}
	for name, tc := range map[string]struct {
		values string
		want   []string
	}{
		"c1Only":   {"brokerJvm:\n  c1Only: true\n", []string{"-XX:TieredStopAtLevel=1"}},
		"aotCache": {aotUse, aotOptions},
	} {
		t.Run(name, func(t *testing.T) {
			values := valuesFile(t, tc.values)
			r := mustRun(t, in, "--values", values)
			after := envEntries(container(statefulSet(t, decodeAll(t, r.stdout), "pinot-broker"), "containers", "broker"), "JAVA_OPTS")
			if len(after) != 2 {
				t.Fatalf("%d JAVA_OPTS entries after inject, want the same 2", len(after))
			}
			if after[0]["value"] != before[0]["value"] {
				t.Errorf("the chart's JAVA_OPTS (shadowed) changed:\n got %v\nwant %v", after[0]["value"], before[0]["value"])
			}
			if want := before[1]["value"].(string) + " " + strings.Join(tc.want, " "); after[1]["value"] != want {
				t.Errorf("broker.extraEnv's JAVA_OPTS, the one the JVM gets:\n got %v\nwant %q", after[1]["value"], want)
			}
			if again := mustRun(t, []byte(r.stdout), "--values", values); again.stdout != r.stdout {
				t.Error("a second run changed the output")
			}
		})
	}
}

// A JAVA_OPTS from valueFrom cannot be edited: with a JVM option asked for, warmup-inject stops
// and says which entry and what to do, instead of editing a shadowed one and exiting 0.
func TestValueFromJavaOptsIsRefusedByName(t *testing.T) {
	in := officialChart(t, "extraenv-javaopts-valuefrom.yaml")
	for lever, values := range map[string]string{
		"brokerJvm.c1Only":   "brokerJvm:\n  c1Only: true\n",
		"brokerJvm.aotCache": aotUse,
	} {
		t.Run(lever, func(t *testing.T) {
			r := runBinary(t, in, "--values", valuesFile(t, values))
			if r.code != 1 || r.stdout != "" {
				t.Fatalf("exit %d, %d bytes on stdout; want exit 1 and nothing (Helm stops). stderr: %s", r.code, len(r.stdout), r.stderr)
			}
			for _, w := range []string{"StatefulSet pinot-broker", "JAVA_OPTS", "valueFrom", "broker.extraEnv", lever, "literal"} {
				if !strings.Contains(r.stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, r.stderr)
				}
			}
		})
	}
	// Nothing asked of JAVA_OPTS: the sidecar goes in, the broker's env stays as rendered.
	r := mustRun(t, in)
	sts := statefulSet(t, decodeAll(t, r.stdout), "pinot-broker")
	if sidecars(sts) != 1 {
		t.Errorf("%d sidecars, want 1", sidecars(sts))
	}
}

// nameOverride sets the broker pods' app label and broker.name their component label: the
// broker is still found (as the official chart's broker) and gets its sidecar.
func TestRenamedChartGetsTheSidecar(t *testing.T) {
	in := officialChart(t, "renamed.yaml") // nameOverride=analytics, broker.name=query
	for name, args := range map[string][]string{
		"default labels": nil,
		"labels set":     {"--values", valuesFile(t, "brokerPodLabels: {app: analytics, component: query}\n")},
	} {
		t.Run(name, func(t *testing.T) {
			objs := decodeAll(t, mustRun(t, in, args...).stdout)
			sts := statefulSet(t, objs, "pinot-analytics-query")
			if n := sidecars(sts); n != 1 {
				t.Fatalf("%d sidecars in the renamed broker, want 1", n)
			}
			env := container(sts, "containers", "warmup-sidecar")
			for k, want := range map[string]string{
				"WARMUP_BROKER_URL":     "http://127.0.0.1:8099",
				"WARMUP_CONTROLLER_URL": "http://pinot-analytics-controller:9000",
			} {
				if got := envValue(env, k); got != want {
					t.Errorf("%s = %q, want %q", k, got, want)
				}
			}
			for _, other := range []string{"pinot-analytics-controller", "pinot-analytics-server"} {
				if n := sidecars(statefulSet(t, objs, other)); n != 0 {
					t.Errorf("%s got %d sidecars", other, n)
				}
			}
		})
	}
}

// No broker in the stream is an error naming the labels looked for and the values that set
// them: Helm hides a post-renderer's stderr on success, so a pass-through would install
// without a sidecar and without a word. enabled: false is the way to pass through.
func TestNoBrokerIsAnErrorNamingTheLabels(t *testing.T) {
	var kept []string
	for _, doc := range strings.Split(string(officialChart(t, "default.yaml")), "\n---\n") {
		if !strings.Contains(doc, "kind: StatefulSet") || !strings.Contains(doc, "\n  name: pinot-broker\n") {
			kept = append(kept, doc)
		}
	}
	in := []byte(strings.Join(kept, "\n---\n"))
	r := runBinary(t, in)
	if r.code != 1 || r.stdout != "" {
		t.Fatalf("exit %d, %d bytes on stdout; want exit 1 and nothing. stderr: %s", r.code, len(r.stdout), r.stderr)
	}
	for _, w := range []string{"no broker StatefulSet", "app=pinot", "component=broker", "brokerPodLabels", "nameOverride", "broker.name", "helm.sh/chart", "enabled: false"} {
		if !strings.Contains(r.stderr, w) {
			t.Errorf("stderr lacks %q:\n%s", w, r.stderr)
		}
	}
	if r := mustRun(t, in, "--values", valuesFile(t, "enabled: false\n")); r.stdout != string(in) {
		t.Error("enabled: false must pass the manifests through unchanged")
	}
}

// Without a port named "broker", an httpGet probe or a single port, inject cannot tell the
// query port; an explicit warmup.brokerUrl needs none, so it gets through.
func TestBrokerURLNeedsNoQueryPort(t *testing.T) {
	in := officialChart(t, "unnamed-port.yaml")
	r := runBinary(t, in)
	if r.code != 1 || !strings.Contains(r.stderr, "query port") || !strings.Contains(r.stderr, "warmup.brokerUrl") {
		t.Errorf("no brokerUrl: exit %d, stderr %q; want 1 naming the query port and warmup.brokerUrl", r.code, r.stderr)
	}
	const url = "http://127.0.0.1:8099"
	r = mustRun(t, in, "--values", valuesFile(t, "warmup:\n  brokerUrl: "+url+"\n"))
	sts := statefulSet(t, decodeAll(t, r.stdout), "pinot-broker")
	if got := envValue(container(sts, "containers", "warmup-sidecar"), "WARMUP_BROKER_URL"); got != url {
		t.Errorf("WARMUP_BROKER_URL = %q, want %q", got, url)
	}
}

// refusedWithoutKubeVersion: with values, the binary exits 2 and writes nothing without
// --kube-version, naming words; and exits 2 naming the version given below the one needed.
func refusedWithoutKubeVersion(t *testing.T, in []byte, values, below string, words ...string) {
	t.Helper()
	r := runBinary(t, in, "--values", values)
	if r.code != 2 || r.stdout != "" {
		t.Fatalf("no --kube-version: exit %d, %d bytes on stdout; want 2 and nothing. stderr: %s", r.code, len(r.stdout), r.stderr)
	}
	for _, w := range append(words, "--kube-version", "--post-renderer-args") {
		if !strings.Contains(r.stderr, w) {
			t.Errorf("stderr lacks %q:\n%s", w, r.stderr)
		}
	}
	if r := runBinary(t, in, "--values", values, "--kube-version", below); r.code != 2 || !strings.Contains(r.stderr, below) {
		t.Errorf("--kube-version %s: exit %d, want 2 naming the version: %s", below, r.code, r.stderr)
	}
}

// brokerCpuBoost needs in-place pod resize (Kubernetes 1.33): like native-sidecar mode it needs
// --kube-version, and refuses a cluster below 1.33.
func TestCPUBoostNeedsAKubeVersion(t *testing.T) {
	in := officialChart(t, "cpu-limits.yaml")
	boost := valuesFile(t, "brokerCpuBoost:\n  enabled: true\n  cpu:\n    limit: \"4\"\n")
	refusedWithoutKubeVersion(t, in, boost, "v1.32.0", "brokerCpuBoost", "1.33")
	n := 0
	for _, o := range decodeAll(t, mustRun(t, in, "--values", boost, "--kube-version", "v1.33.0").stdout) {
		if o["kind"] == "ValidatingAdmissionPolicy" {
			n++
		}
	}
	if n != 1 {
		t.Errorf("--kube-version v1.33.0: %d ValidatingAdmissionPolicies, want 1", n)
	}
}

// A post-renderer cannot ask the cluster its version: native-sidecar mode, which needs 1.29,
// requires --kube-version; the default (a regular container) needs none.
func TestNativeSidecarNeedsAKubeVersion(t *testing.T) {
	in := officialChart(t, "default.yaml")
	native := valuesFile(t, "nativeSidecar: true\n")
	refusedWithoutKubeVersion(t, in, native, "v1.28.0", "nativeSidecar")
	sts := statefulSet(t, decodeAll(t, mustRun(t, in, "--values", native, "--kube-version", "v1.30.0").stdout), "pinot-broker")
	if container(sts, "initContainers", "warmup-sidecar") == nil {
		t.Error("--kube-version v1.30.0: no native sidecar")
	}
	if sts := statefulSet(t, decodeAll(t, mustRun(t, in).stdout), "pinot-broker"); container(sts, "containers", "warmup-sidecar") == nil {
		t.Error("default mode without --kube-version: no sidecar")
	}
}
