//go:build kube

package testbed

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/warmup-sidecar/warmup-sidecar/e2e/coldstart"
)

// brokerCmdline is the running broker JVM's command line (the container id names its pid).
func brokerCmdline(p *corev1.Pod) (string, error) {
	for _, cs := range p.Status.ContainerStatuses {
		if cs.Name != "broker" {
			continue
		}
		pid, ok := strings.CutPrefix(cs.ContainerID, "testbed://")
		if !ok {
			return "", fmt.Errorf("broker container id %q", cs.ContainerID)
		}
		b, err := os.ReadFile("/proc/" + pid + "/cmdline")
		return strings.ReplaceAll(string(b), "\x00", " "), err
	}
	return "", fmt.Errorf("%s has no broker container status", p.Name)
}

// lastEnv is the value of the container's last env entry named name (the one the kubelet uses).
func lastEnv(p *corev1.Pod, container, name string) string {
	v := ""
	for _, c := range p.Spec.Containers {
		if c.Name != container {
			continue
		}
		for _, e := range c.Env {
			if e.Name == name {
				v = e.Value
			}
		}
	}
	return v
}

// TestChartValuesOnALiveRelease applies every value of ours that changes the broker pod to a live
// release by helm upgrade on the values route (the official chart's own values): the API server
// accepts each (the StatefulSet controller rolls the pod and it turns Ready with what the value
// asks for), or warmup-inject refuses it before anything is applied, naming the value. Then the
// PodMonitor of the companion release (pinot-broker-warmup's chart) selects the pods by the API
// server's own label selection.
func TestChartValuesOnALiveRelease(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Minute)
	defer cancel()
	java25, err := coldstart.FindJDK(ctx, 25)
	if err != nil {
		t.Fatal(err)
	}
	pb := startPinotBed(t, ctx, java25) // "" (the machine's JDK): the AOT cases are skipped
	values := filepath.Join(pb.dir, "values.yaml")
	if err := (BrokerValues{Replicas: 1, CPURequest: "500m", CPULimit: "1", ReadinessDelay: 5}).Write(pb.pinot, values); err != nil {
		t.Fatal(err)
	}
	write := func(name, body string) string {
		p := filepath.Join(pb.dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	// The PodMonitor of the values route's companion release needs the prometheus-operator's CRD,
	// not on this machine: a stand-in of the same group, version and kind with an open schema
	// lets the API server store the object.
	if out, err := pb.Kubectl(ctx, "apply", "-f", write("podmonitor-crd.yaml", podMonitorCRD)); err != nil {
		t.Fatalf("PodMonitor CRD stand-in: %v\n%s", err, out)
	}
	if err := WaitFor(ctx, "the PodMonitor CRD established", time.Minute, func() (bool, string) {
		out, err := pb.Kubectl(ctx, "get", "podmonitors", "-A")
		return err == nil, out
	}); err != nil {
		t.Fatal(err)
	}
	base := "warmup:\n  budget: 10s\npodMonitor:\n  enabled: true\n"
	rel := Release{Name: release, Namespace: ns, Values: []string{values}, Wait: true, Sidecar: ValuesRoute,
		WarmupValues: []string{write("base.yaml", base)}}
	if out, err := pb.helm.Install(ctx, rel); err != nil {
		t.Fatalf("helm install: %v\n%s", err, out)
	}
	pods := pb.brokersRolled(t, ctx, 1, true, nil)

	aot := func(mode string) string {
		return base + "brokerJvm:\n  aotCache:\n    enabled: true\n    mode: " + mode +
			"\n    volume:\n      hostPath:\n        path: /var/lib/pinot-aot-cache\n        type: DirectoryOrCreate\n"
	}
	type step struct {
		name   string
		values string
		jdk25  bool
		check  func(t *testing.T, p *corev1.Pod)
	}
	steps := []step{
		{name: "c1Only", values: base + "brokerJvm:\n  c1Only: true\n", check: func(t *testing.T, p *corev1.Pod) {
			if !strings.Contains(lastEnv(p, "broker", "JAVA_OPTS"), "-XX:TieredStopAtLevel=1") {
				t.Errorf("JAVA_OPTS %q lacks the C1 flag", lastEnv(p, "broker", "JAVA_OPTS"))
			}
			if cl, err := brokerCmdline(p); err != nil || !strings.Contains(cl, "-XX:TieredStopAtLevel=1") {
				t.Errorf("the broker JVM runs without the C1 flag: %q %v", cl, err)
			}
		}},
		{name: "aotCache train", values: aot("train"), jdk25: true, check: func(t *testing.T, p *corev1.Pod) {
			if cl, err := brokerCmdline(p); err != nil || !strings.Contains(cl, "-XX:AOTCacheOutput=") {
				t.Errorf("the broker JVM runs without -XX:AOTCacheOutput: %q %v", cl, err)
			}
		}},
		{name: "aotCache use", values: aot("use"), jdk25: true, check: func(t *testing.T, p *corev1.Pod) {
			if cl, err := brokerCmdline(p); err != nil || !strings.Contains(cl, "-XX:AOTCache=") {
				t.Errorf("the broker JVM runs without -XX:AOTCache: %q %v", cl, err)
			}
			u, err := pb.PodURL(p, 9095)
			if err != nil {
				t.Fatal(err)
			}
			_, body, err := Get(ctx, u+"/status")
			var st struct {
				AOT struct{ State string } `json:"broker_aot_cache"`
			}
			if err != nil || json.Unmarshal([]byte(body), &st) != nil || st.AOT.State == "" || st.AOT.State == "unreadable" {
				t.Errorf("sidecar broker_aot_cache %q (%v): want used or absent (the JVM's AOT log read)", st.AOT.State, err)
			}
			t.Logf("the cache the train pod left at its exit: broker_aot_cache %s", st.AOT.State)
		}},
		{name: "back to the defaults: a native sidecar (the values route's only placement)", values: base, check: func(t *testing.T, p *corev1.Pod) {
			native := false
			for _, c := range p.Spec.InitContainers {
				native = native || (c.Name == sidecarName && c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways)
			}
			if !native {
				t.Errorf("no native sidecar among the init containers: %+v", p.Spec.InitContainers)
			}
		}},
	}
	for _, s := range steps {
		if s.jdk25 && java25 == "" {
			t.Logf("%s: skipped, no JDK 25+ for the broker (%s)", s.name, coldstart.BrokerJavaEnv)
			continue
		}
		up := rel
		up.WarmupValues = []string{write(strings.ReplaceAll(s.name, " ", "-")+".yaml", s.values)}
		if out, err := pb.helm.Upgrade(ctx, up); err != nil {
			t.Fatalf("%s: helm upgrade refused: %v\n%s", s.name, err, out)
		}
		pods = pb.brokersRolled(t, ctx, 1, true, uids(pods))
		if s.check != nil {
			s.check(t, &pods[0])
		}
	}

	// Refused by warmup-inject before anything reaches the API server: the release stays as it was.
	for _, bad := range []struct{ name, values, want string }{
		{"a regular container asked of the values route", base + "nativeSidecar: false\n", "nativeSidecar is false"},
	} {
		up := rel
		up.WarmupValues = []string{write("bad.yaml", bad.values)}
		out, err := pb.helm.Upgrade(ctx, up)
		if err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%s: helm upgrade %v, output %q; want refused, saying %q", bad.name, err, out, bad.want)
		}
		now, err := pb.Pods(ctx, ns, brokerSel)
		if err != nil || len(now) != 1 || now[0].UID != pods[0].UID || now[0].DeletionTimestamp != nil {
			t.Errorf("%s: the refused upgrade touched the pods (%v)", bad.name, err)
		}
	}

	// The PodMonitor (the companion release, pinot-broker-warmup's chart) selects the pods.
	out, err := pb.Kubectl(ctx, "get", "podmonitors", "-n", ns, "-o", "json")
	if err != nil {
		t.Fatal(err)
	}
	var pms struct {
		Items []struct {
			Spec struct {
				Selector            metav1.LabelSelector    `json:"selector"`
				PodMetricsEndpoints []struct{ Port string } `json:"podMetricsEndpoints"`
			} `json:"spec"`
		} `json:"items"`
	}
	if err := json.Unmarshal([]byte(out), &pms); err != nil || len(pms.Items) != 1 {
		t.Fatalf("PodMonitors: %v %s", err, out)
	}
	pm := pms.Items[0].Spec
	sel, err := metav1.LabelSelectorAsSelector(&pm.Selector)
	if err != nil {
		t.Fatal(err)
	}
	selected, err := pb.Pods(ctx, ns, sel.String())
	if err != nil || len(selected) != 1 || selected[0].Name != pods[0].Name {
		t.Fatalf("the PodMonitor's selector %s selects %d pods (%v), want the broker pod", sel, len(selected), err)
	}
	for _, ep := range pm.PodMetricsEndpoints {
		found := false
		for _, c := range append(append([]corev1.Container{}, selected[0].Spec.Containers...), selected[0].Spec.InitContainers...) {
			for _, port := range c.Ports {
				found = found || port.Name == ep.Port
			}
		}
		if !found {
			t.Errorf("the PodMonitor scrapes port %q, which no container of %s declares", ep.Port, selected[0].Name)
		}
	}
	if out, err := pb.helm.Uninstall(ctx, release, ns); err != nil {
		t.Errorf("helm uninstall %s and its companion: %v\n%s", release, err, out)
	}
}

// podMonitorCRD stands in for the prometheus-operator's PodMonitor CRD: same group, version, kind
// and scope, schema left open.
const podMonitorCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: podmonitors.monitoring.coreos.com
spec:
  group: monitoring.coreos.com
  scope: Namespaced
  names: {kind: PodMonitor, listKind: PodMonitorList, plural: podmonitors, singular: podmonitor}
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          x-kubernetes-preserve-unknown-fields: true
`
