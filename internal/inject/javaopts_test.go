package inject

import (
	"reflect"
	"strings"
	"testing"
)

const c1Flag = "-XX:TieredStopAtLevel=1"

// javaOptsOfAll maps every container of every workload in the stream (kind/name/container) to
// its JAVA_OPTS value.
func javaOptsOfAll(objs []k8sObject) map[string]string {
	out := map[string]string{}
	for _, o := range objs {
		for _, list := range []string{"containers", "initContainers"} {
			items, _ := o.get("spec", "template", "spec", list).([]any)
			for _, c := range items {
				m := c.(map[string]any)
				if v, ok := envOf(m)["JAVA_OPTS"]; ok {
					out[o.id()+"/"+m["name"].(string)] = v
				}
			}
		}
	}
	return out
}

func TestC1OnlyLandsOnceInTheBrokerOnly(t *testing.T) {
	on := writeValues(t, "brokerJvm:\n  c1Only: true\n")
	for _, name := range []string{"default.yaml", "customized.yaml"} {
		t.Run(name, func(t *testing.T) {
			before := javaOptsOfAll(objects(t, string(fixture(t, name))))
			out := mustInject(t, fixture(t, name), "--values", on)
			after := javaOptsOfAll(objects(t, out))
			if len(before) < 4 || len(after) != len(before) {
				t.Fatalf("JAVA_OPTS containers: %d before, %d after; want the same, at least broker, controller, server, minion", len(before), len(after))
			}
			for id, v := range after {
				n := strings.Count(" "+v+" ", " "+c1Flag+" ")
				if id == "StatefulSet/pinot-broker/broker" {
					if n != 1 || v != before[id]+" "+c1Flag {
						t.Errorf("%s: JAVA_OPTS %q, want the chart's %q plus %s once", id, v, before[id], c1Flag)
					}
					continue
				}
				if n != 0 || v != before[id] {
					t.Errorf("%s: JAVA_OPTS changed to %q (want %q): only the broker's may", id, v, before[id])
				}
			}
			if again := mustInject(t, []byte(out), "--values", on); again != out {
				t.Error("a second run changed the output")
			}
			// The broker container differs in JAVA_OPTS alone (and in the probes decidedBy auto
			// starts at once: decidedby_test.go).
			b := containerNamed(brokerStatefulSets(objects(t, string(fixture(t, name))))[0], "containers", "broker")
			a := containerNamed(brokerStatefulSets(objects(t, out))[0], "containers", "broker")
			for _, k := range []string{"env", "readinessProbe", "startupProbe"} {
				delete(b, k)
				delete(a, k)
			}
			if !reflect.DeepEqual(a, b) {
				t.Error("the broker container changed outside its env")
			}
		})
	}
	// Off (the default) leaves every JAVA_OPTS as the chart rendered it.
	off := javaOptsOfAll(objects(t, mustInject(t, fixture(t, "default.yaml"))))
	if want := javaOptsOfAll(objects(t, string(fixture(t, "default.yaml")))); !reflect.DeepEqual(off, want) {
		t.Errorf("c1Only false changed JAVA_OPTS:\n got %v\nwant %v", off, want)
	}
}

func TestC1OnlyWithoutJavaOptsIsAnError(t *testing.T) {
	for _, tc := range []struct{ name, values, want string }{
		{"no JAVA_OPTS env", "brokerJvm: {c1Only: true}\nwarmup: {tables: [t]}\n", `no env JAVA_OPTS with a literal value to add "-XX:TieredStopAtLevel=1"`},
		{"another variable named", "brokerJvm: {c1Only: true, javaOptsEnv: BROKER_OPTS}\nwarmup: {tables: [t]}\n", "no env BROKER_OPTS"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, stderr, code := runInject(t, []byte(brokerOnly(8099)), "--values", writeValues(t, tc.values))
			if code == 0 || out != "" || !strings.Contains(stderr, tc.want) || !strings.Contains(stderr, "StatefulSet b") {
				t.Errorf("exit %d, stdout %q, stderr %q; want a failure naming StatefulSet b and %q", code, out, stderr, tc.want)
			}
		})
	}
	// The same manifests pass with the lever off: nothing is asked of the broker's env.
	if _, stderr, code := runInject(t, []byte(brokerOnly(8099)), "--values", writeValues(t, "warmup: {tables: [t]}\n")); code != 0 {
		t.Errorf("c1Only off: exit %d: %s", code, stderr)
	}
}

// The umbrella path appends the same flag, once, to its own broker JVM options.
func TestUmbrellaC1OnlyMatchesInject(t *testing.T) {
	for _, c1 := range []bool{false, true} {
		values := umbrellaValues(t, "warmup: {controllerUrl: http://pinot-controller:9000}\n")
		values["pinot-broker-warmup"].(map[string]any)["brokerJvm"] = map[string]any{"c1Only": c1}
		rendered, defaults := renderUmbrella(t, values)
		got := envOf(containerNamed(brokerStatefulSets(rendered)[0], "containers", "broker"))["JAVA_OPTS"]
		base, _ := defaults["broker"].(map[string]any)["jvmOpts"].(string)
		want := base
		if c1 {
			want += " " + c1Flag
		}
		if got != want {
			t.Errorf("c1Only %v: umbrella broker JAVA_OPTS %q, want %q", c1, got, want)
		}
	}
}

// brokerWithEnv is a minimal broker StatefulSet whose broker container has env and envFrom.
func brokerWithEnv(env, envFrom string) string {
	return brokerOnly(8099) + "          env: " + env + "\n          envFrom: " + envFrom + "\n"
}

// The kubelet gives the container the last env entry of a name: that one gets the options, the
// earlier ones stay as they are; what cannot be edited is refused by name.
func TestJavaOptsGoToTheEntryTheKubeletUses(t *testing.T) {
	c1 := writeValues(t, "brokerJvm: {c1Only: true}\nwarmup: {tables: [t]}\n")
	in := brokerWithEnv("[{name: JAVA_OPTS, value: -Xmx1G}, {name: OTHER, value: x}, {name: JAVA_OPTS, value: $(JAVA_OPTS) -Xmx2G}]", "[]")
	env := containerNamed(brokerStatefulSets(objects(t, mustInject(t, []byte(in), "--values", c1)))[0], "containers", "broker")["env"].([]any)
	got := []string{env[0].(map[string]any)["value"].(string), env[2].(map[string]any)["value"].(string)}
	if want := []string{"-Xmx1G", "$(JAVA_OPTS) -Xmx2G " + c1Flag}; !reflect.DeepEqual(got, want) {
		t.Errorf("JAVA_OPTS entries %q, want %q", got, want)
	}
	for _, tc := range []struct{ name, env, envFrom, want string }{
		{"last from a Secret", "[{name: JAVA_OPTS, value: -Xmx1G}, {name: JAVA_OPTS, valueFrom: {secretKeyRef: {name: s, key: k}}}]", "[]",
			"the last of 2 with that name; official chart: broker.extraEnv) takes its value from valueFrom"},
		{"last without a value", "[{name: JAVA_OPTS, value: -Xmx1G}, {name: JAVA_OPTS}]", "[]", "has no literal value"},
		{"only envFrom", "[]", "[{configMapRef: {name: jvm}}]", "its envFrom may set it, which warmup-inject cannot edit"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, stderr, code := runInject(t, []byte(brokerWithEnv(tc.env, tc.envFrom)), "--values", c1)
			if code != 1 || out != "" || !strings.Contains(stderr, tc.want) || !strings.Contains(stderr, "brokerJvm.c1Only") {
				t.Errorf("exit %d, stdout %d bytes, stderr %q; want 1, nothing, %q and brokerJvm.c1Only", code, len(out), stderr, tc.want)
			}
		})
	}
}
