package rollout

import (
	"encoding/json"
	"github.com/warmup-sidecar/warmup-sidecar/e2e/kube/testbed"
	"os"
	"reflect"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
)

func readValues(t *testing.T, path string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var v map[string]any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return v
}

// Each arm is chart values: the off arms the chart alone, the ON arms warmup-inject as the
// post-renderer with the sidecar's settings, on_c1 its brokerJvm.c1Only, on_fast its
// brokerReadiness.decidedBy sidecar (on_default none: its default, auto, is the chart's delay on the
// study's CPU-limited brokers), on_boost that and its brokerCpuBoost (the Role up to the
// scale-out's pod), off_fast the chart's probe as short; a rollout stamps the
// restartedAt annotation and the replicas are always stated.
func TestArmsAreChartValues(t *testing.T) {
	b := &bed{dir: t.TempDir(), base: "base.yaml", controllerURL: "http://127.0.0.2:30001", pacedRate: 20,
		cfg: Config{SidecarEnv: map[string]string{"WARMUP_BUDGET": "40s"}, ReadinessPeriod: 2 * time.Second, SidecarProbePeriod: 3 * time.Second,
			Brokers: 3, BoostCPULimit: "1"}}
	studyProbe := map[string]any{"periodSeconds": 2.0}
	// off_fast's probe is what the gate's rule makes of the chart's (60 s, 10 s × 10).
	fast := map[string]any{"initialDelaySeconds": 1.0, "periodSeconds": 1.0, "failureThreshold": 100.0}
	for _, tc := range []struct {
		arm    string
		probe  map[string]any
		inject map[string]any
	}{
		{ArmOff, studyProbe, nil},
		{ArmOffFast, fast, nil},
		{ArmLBSlowStart, studyProbe, nil},
		{ArmOnDefault, studyProbe, map[string]any{"warmup": map[string]any{"budget": "40s", "controllerUrl": "http://127.0.0.2:30001"},
			"readinessProbe": map[string]any{"periodSeconds": 3.0}}},
		{ArmOnFast, studyProbe, map[string]any{"warmup": map[string]any{"budget": "40s", "controllerUrl": "http://127.0.0.2:30001"},
			"readinessProbe": map[string]any{"periodSeconds": 3.0}, "brokerReadiness": map[string]any{"decidedBy": "sidecar"}}},
		{ArmOnChart, studyProbe, map[string]any{"warmup": map[string]any{"budget": "40s", "controllerUrl": "http://127.0.0.2:30001"},
			"readinessProbe": map[string]any{"periodSeconds": 3.0}, "brokerReadiness": map[string]any{"decidedBy": "chart"}}},
		{ArmOnFastPaced, studyProbe, map[string]any{"warmup": map[string]any{"budget": "40s", "controllerUrl": "http://127.0.0.2:30001", "maxProbeRate": 20.0},
			"readinessProbe": map[string]any{"periodSeconds": 3.0}, "brokerReadiness": map[string]any{"decidedBy": "sidecar"}}},
		{ArmOnBoost, studyProbe, map[string]any{"warmup": map[string]any{"budget": "40s", "controllerUrl": "http://127.0.0.2:30001"},
			"readinessProbe": map[string]any{"periodSeconds": 3.0}, "brokerReadiness": map[string]any{"decidedBy": "sidecar"},
			"brokerCpuBoost": map[string]any{"enabled": true, "cpu": map[string]any{"limit": "1"}, "maxReplicas": 4.0}}},
		{ArmOnC1, studyProbe, map[string]any{"warmup": map[string]any{"budget": "40s", "controllerUrl": "http://127.0.0.2:30001"},
			"readinessProbe": map[string]any{"periodSeconds": 3.0}, "brokerJvm": map[string]any{"c1Only": true}}},
	} {
		t.Run(tc.arm, func(t *testing.T) {
			rel, err := b.release(tc.arm, 3, "2026-12-04T05:00:00Z")
			if err != nil {
				t.Fatal(err)
			}
			if len(rel.Values) != 2 || rel.Values[0] != "base.yaml" {
				t.Fatalf("values files %v, want the base then the release's", rel.Values)
			}
			want := map[string]any{"broker": map[string]any{"replicaCount": 3.0,
				"podAnnotations": map[string]any{restartedAt: "2026-12-04T05:00:00Z"},
				"probes":         map[string]any{"readiness": tc.probe}}}
			if got := readValues(t, rel.Values[1]); !reflect.DeepEqual(got, want) {
				t.Errorf("chart values %v, want %v", got, want)
			}
			if on := rel.Sidecar == testbed.ValuesRoute; on != (tc.inject != nil) {
				t.Fatalf("sidecar route %s, want the values route %v", rel.Sidecar, tc.inject != nil)
			}
			if tc.inject != nil {
				if got := readValues(t, rel.WarmupValues[0]); !reflect.DeepEqual(got, tc.inject) {
					t.Errorf("warmup-inject values %v, want %v", got, tc.inject)
				}
			}
		})
	}
	// Before the first rollout there is no annotation: the install is the chart's template.
	rel, err := b.release(ArmOff, 2, "")
	if err != nil {
		t.Fatal(err)
	}
	if broker := readValues(t, rel.Values[1])["broker"].(map[string]any); broker["podAnnotations"] != nil {
		t.Errorf("install values %v: want no restartedAt annotation", broker)
	}
}

// on_boost_compilers is on_boost with the compiler threads named in the broker's jvmOpts: the
// base's options (the chart's and the agent) kept, the count added; no other arm sets jvmOpts
// (TestArmsAreChartValues compares their whole release values).
func TestCompilersArmAddsTheCountToTheBrokersJVMOptions(t *testing.T) {
	b := &bed{dir: t.TempDir(), base: "base.yaml", controllerURL: "http://127.0.0.2:30001", jvmOpts: "-XX:ActiveProcessorCount=2 -Xmx1G",
		cfg: Config{Brokers: 3, BoostCPULimit: "1", BoostCompilers: 6}}
	rel, err := b.release(ArmOnBoostCompilers, 3, "")
	if err != nil {
		t.Fatal(err)
	}
	broker := readValues(t, rel.Values[1])["broker"].(map[string]any)
	if got, want := broker["jvmOpts"], "-XX:ActiveProcessorCount=2 -Xmx1G -XX:CICompilerCount=6"; got != want {
		t.Errorf("broker.jvmOpts %q, want %q", got, want)
	}
	boost, err := b.release(ArmOnBoost, 3, "")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := readValues(t, rel.WarmupValues[0]), readValues(t, boost.WarmupValues[0]); !reflect.DeepEqual(got, want) {
		t.Errorf("warmup-inject values %v, want on_boost's %v", got, want)
	}
}

// Done is what `kubectl rollout status` waits for, with every pod Ready.
func TestRolledIsTheStatefulSetsStatus(t *testing.T) {
	three := int32(3)
	done := appsv1.StatefulSet{Spec: appsv1.StatefulSetSpec{Replicas: &three}}
	done.Generation = 4
	done.Status = appsv1.StatefulSetStatus{ObservedGeneration: 4, Replicas: 3, ReadyReplicas: 3, UpdatedReplicas: 3,
		CurrentRevision: "r2", UpdateRevision: "r2"}
	if !rolled(&done, 3) {
		t.Fatalf("%+v: not rolled", done.Status)
	}
	for name, edit := range map[string]func(*appsv1.StatefulSet){
		"an older generation observed": func(s *appsv1.StatefulSet) { s.Status.ObservedGeneration = 3 },
		"a pod not Ready":              func(s *appsv1.StatefulSet) { s.Status.ReadyReplicas = 2 },
		"a pod of the old revision":    func(s *appsv1.StatefulSet) { s.Status.UpdatedReplicas = 2 },
		"revisions differ":             func(s *appsv1.StatefulSet) { s.Status.CurrentRevision = "r1" },
		"a pod too many":               func(s *appsv1.StatefulSet) { s.Status.Replicas = 4 },
		"another replica count":        func(s *appsv1.StatefulSet) { two := int32(2); s.Spec.Replicas = &two },
	} {
		s := done
		s.Spec.Replicas = &three
		edit(&s)
		if rolled(&s, 3) {
			t.Errorf("%s: rolled", name)
		}
	}
}

// With the JMX agent the ON arms' sidecars read the JIT signal from it (unless the study's
// settings name another), but on_boost_fixed's has none and gives its boost back the fixed hold
// after its gate opened: what a boost with a fixed give-back is.
func TestJMXAgentGivesTheJITSignalExceptToTheFixedBoost(t *testing.T) {
	b := &bed{dir: t.TempDir(), base: "base.yaml", controllerURL: "http://127.0.0.2:30001",
		cfg: Config{Brokers: 2, BoostCPULimit: "1", BoostFixedHold: time.Minute, JMXAgent: true}}
	for _, tc := range []struct {
		arm    string
		jit    any
		settle any
	}{
		{ArmOnDefault, jitURL, nil},
		{ArmOnBoost, jitURL, nil},
		{ArmOnBoostFixed, nil, "1m0s"},
	} {
		rel, err := b.release(tc.arm, 2, "")
		if err != nil {
			t.Fatal(err)
		}
		v := readValues(t, rel.WarmupValues[0])
		if got := v["warmup"].(map[string]any)["jvmMetricsUrl"]; got != tc.jit {
			t.Errorf("%s: warmup.jvmMetricsUrl %v, want %v", tc.arm, got, tc.jit)
		}
		var settle any
		if boost, ok := v["brokerCpuBoost"].(map[string]any); ok {
			settle = boost["settle"]
		}
		if settle != tc.settle {
			t.Errorf("%s: brokerCpuBoost.settle %v, want %v", tc.arm, settle, tc.settle)
		}
	}
	if jmxAgentOpt != "-javaagent:/opt/pinot/etc/jmx_prometheus_javaagent/jmx_prometheus_javaagent.jar=127.0.0.1:8008:/opt/pinot/etc/jmx_prometheus_javaagent/configs/pinot.yml" {
		t.Errorf("agent option %q: want the image's agent on the pod's loopback port 8008", jmxAgentOpt)
	}
}

// on_boost_gentle is on_boost with the sidecar's probes in flight set: warmup-inject's values
// differ from on_boost's in warmup.concurrency alone.
func TestGentleArmSetsTheSidecarsConcurrency(t *testing.T) {
	b := &bed{dir: t.TempDir(), base: "base.yaml", controllerURL: "http://127.0.0.2:30001",
		cfg: Config{Brokers: 3, BoostCPULimit: "1", GentleConcurrency: 2}}
	gentle, err := b.release(ArmOnBoostGentle, 3, "")
	if err != nil {
		t.Fatal(err)
	}
	boost, err := b.release(ArmOnBoost, 3, "")
	if err != nil {
		t.Fatal(err)
	}
	got, want := readValues(t, gentle.WarmupValues[0]), readValues(t, boost.WarmupValues[0])
	if c := got["warmup"].(map[string]any)["concurrency"]; c != float64(2) && c != 2 {
		t.Errorf("warmup.concurrency %v (%T), want 2", c, c)
	}
	delete(got["warmup"].(map[string]any), "concurrency")
	if !reflect.DeepEqual(got, want) {
		t.Errorf("warmup-inject values but the concurrency %v, want on_boost's %v", got, want)
	}
}

// on_boost_300m is on_boost with the broker's CPU its own (its release's broker.resources, 300m
// request and limit) inside a study whose brokers run as the chart ships them: warmup-inject's
// values are on_boost's. The fleet readied for it is off_fast's template with that CPU; an arm
// at the study's CPU states none (each upgrade states every value: the base's stand).
func TestOwnCPUArmSetsTheBrokersResources(t *testing.T) {
	b := &bed{dir: t.TempDir(), base: "base.yaml", controllerURL: "http://127.0.0.2:30001",
		cfg: Config{Brokers: 3, BoostCPULimit: "1", BrokerCPURequest: CPUNone, BrokerCPULimit: CPUNone}}
	own := map[string]any{"requests": map[string]any{"cpu": "300m"}, "limits": map[string]any{"cpu": "300m"}}
	for _, tc := range []struct {
		t    podTemplate
		want any
	}{
		{podTemplate{ArmOnBoost300m, ArmOnBoost300m}, own},
		{podTemplate{ArmOffFast, ArmOnBoost300m}, own},
		{podTemplate{ArmOnFast, ArmOnFast}, nil},
		{podTemplate{ArmOffFast, ArmOnFast}, nil},
	} {
		rel, err := b.releaseOf(tc.t, 3, "")
		if err != nil {
			t.Fatal(err)
		}
		if got := readValues(t, rel.Values[1])["broker"].(map[string]any)["resources"]; !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: broker.resources %v, want %v", tc.t, got, tc.want)
		}
	}
	ref, err := b.release(ArmOnBoost300m, 3, "")
	if err != nil {
		t.Fatal(err)
	}
	boost, err := b.release(ArmOnBoost, 3, "")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := readValues(t, ref.WarmupValues[0]), readValues(t, boost.WarmupValues[0]); !reflect.DeepEqual(got, want) {
		t.Errorf("warmup-inject values %v, want on_boost's %v", got, want)
	}

	// A study at 300m whose arm ran without a limit: back to 300m is every field stated again.
	b.cfg.BrokerCPURequest, b.cfg.BrokerCPULimit = "300m", "300m"
	if got := b.cpuValues(ArmOnBoost300m); got != nil {
		t.Errorf("on_boost_300m in a 300m study: broker.resources %v, want the base's (nil)", got)
	}
	b.cfg.BrokerCPURequest, b.cfg.BrokerCPULimit = "500m", CPUNone
	want := map[string]any{"requests": map[string]any{"cpu": "300m"}, "limits": map[string]any{"cpu": "300m"}}
	if got := b.cpuValues(ArmOnBoost300m); !reflect.DeepEqual(got, want) {
		t.Errorf("on_boost_300m in a study of 500m and no limit: %v, want %v", got, want)
	}
}

// The base values leave a CPU of none out: the chart's broker.resources (requests.memory only).
func TestBaseValuesLeaveNoneOut(t *testing.T) {
	for _, tc := range []struct{ req, lim, wantReq, wantLim string }{
		{CPUNone, CPUNone, "", ""},
		{"300m", CPUNone, "300m", ""},
		{"300m", "300m", "300m", "300m"},
	} {
		v := baseValues(Config{Brokers: 3, BrokerCPURequest: tc.req, BrokerCPULimit: tc.lim})
		if v.CPURequest != tc.wantReq || v.CPULimit != tc.wantLim {
			t.Errorf("request %s, limit %s: values request %q, limit %q; want %q, %q", tc.req, tc.lim, v.CPURequest, v.CPULimit, tc.wantReq, tc.wantLim)
		}
	}
}
