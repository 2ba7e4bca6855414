package inject

import (
	"reflect"
	"strings"
	"testing"
)

const aotValues = `
brokerJvm:
  aotCache:
    enabled: true
    volume:
      persistentVolumeClaim: {claimName: pinot-broker-aot}
`

// The fixtures' broker image is apachepinot/pinot:latest.
const (
	aotUse   = "-XX:AOTCache=/var/lib/pinot-aot/apachepinot-pinot-latest.aot -Xlog:aot=info,cds=info:file=/var/log/pinot-aot/aot.log"
	aotTrain = "-XX:AOTCacheOutput=/var/lib/pinot-aot/apachepinot-pinot-latest.aot -Xlog:aot=info,cds=info:file=/var/log/pinot-aot/aot.log"
)

// mountsOf maps a container's volume mounts by name.
func mountsOf(c map[string]any) map[string]map[string]any {
	out := map[string]map[string]any{}
	items, _ := c["volumeMounts"].([]any)
	for _, it := range items {
		m := it.(map[string]any)
		out[m["name"].(string)] = m
	}
	return out
}

func volumesOf(sts k8sObject) map[string]map[string]any {
	out := map[string]map[string]any{}
	items, _ := sts.get("spec", "template", "spec", "volumes").([]any)
	for _, it := range items {
		v := it.(map[string]any)
		out[v["name"].(string)] = v
	}
	return out
}

// TestAOTCacheLandsInTheBrokerPod: the use mode mounts the cache read-only, the train mode writable; both mount
// the log directory in the broker and, read-only, in the sidecar, which is told where the log is.
func TestAOTCacheLandsInTheBrokerPod(t *testing.T) {
	for _, tc := range []struct {
		mode, opts string
		readOnly   bool
	}{{"use", aotUse, true}, {"train", aotTrain, false}} {
		for _, name := range []string{"default.yaml", "customized.yaml"} {
			t.Run(tc.mode+"/"+name, func(t *testing.T) {
				values := writeValues(t, aotValues+"    mode: "+tc.mode+"\n")
				before := javaOptsOfAll(objects(t, string(fixture(t, name))))
				out := mustInject(t, fixture(t, name), "--values", values)
				after := javaOptsOfAll(objects(t, out))
				for id, v := range after {
					want := before[id]
					if id == "StatefulSet/pinot-broker/broker" {
						want += " " + tc.opts
					}
					if v != want {
						t.Errorf("%s: JAVA_OPTS %q, want %q", id, v, want)
					}
				}
				sts := brokerStatefulSets(objects(t, out))[0]
				mounts := mountsOf(containerNamed(sts, "containers", "broker"))
				cache, logDir := mounts["warmup-aot-cache"], mounts["warmup-aot-log"]
				if cache == nil || cache["mountPath"] != "/var/lib/pinot-aot" || (cache["readOnly"] == true) != tc.readOnly {
					t.Errorf("broker's cache mount %v, want /var/lib/pinot-aot readOnly %v", cache, tc.readOnly)
				}
				if logDir == nil || logDir["mountPath"] != "/var/log/pinot-aot" || logDir["readOnly"] == true {
					t.Errorf("broker's log mount %v, want /var/log/pinot-aot writable", logDir)
				}
				if mounts["config"] == nil {
					t.Error("the broker's own config mount is gone")
				}
				vols := volumesOf(sts)
				if !reflect.DeepEqual(vols["warmup-aot-cache"], map[string]any{"name": "warmup-aot-cache",
					"persistentVolumeClaim": map[string]any{"claimName": "pinot-broker-aot"}}) {
					t.Errorf("cache volume %v, want the values' PVC", vols["warmup-aot-cache"])
				}
				if vols["warmup-aot-log"]["emptyDir"] == nil {
					t.Errorf("log volume %v, want an emptyDir", vols["warmup-aot-log"])
				}
				side := containerNamed(sts, "containers", "warmup-sidecar")
				if got := envOf(side)["WARMUP_BROKER_AOT_LOG"]; got != "/var/log/pinot-aot/aot.log" {
					t.Errorf("sidecar WARMUP_BROKER_AOT_LOG %q", got)
				}
				if m := mountsOf(side)["warmup-aot-log"]; m == nil || m["mountPath"] != "/var/log/pinot-aot" || m["readOnly"] != true {
					t.Errorf("sidecar's log mount %v, want /var/log/pinot-aot read-only", m)
				}
				if again := mustInject(t, []byte(out), "--values", values); again != out {
					t.Error("a second run changed the output")
				}
			})
		}
	}
}

// Off (the default): no AOT option, volume, mount or variable anywhere.
func TestAOTCacheOffAddsNothing(t *testing.T) {
	out := mustInject(t, fixture(t, "default.yaml"), "--values", writeValues(t, "warmup: {tables: [t]}\n"))
	for _, s := range []string{"AOTCache", "aot.log", "warmup-aot", "WARMUP_BROKER_AOT_LOG"} {
		if strings.Contains(out, s) {
			t.Errorf("output names %s with brokerJvm.aotCache off", s)
		}
	}
}

// Switching a stream already injected in train mode to use leaves one AOT option: the JVM
// refuses AOTCache and AOTCacheOutput together.
func TestAOTCacheModeSwitchLeavesOneOption(t *testing.T) {
	trained := mustInject(t, fixture(t, "default.yaml"), "--values", writeValues(t, aotValues+"    mode: train\n"))
	out := mustInject(t, []byte(trained), "--values", writeValues(t, aotValues+"    mode: use\n"))
	got := javaOptsOfAll(objects(t, out))["StatefulSet/pinot-broker/broker"]
	if strings.Contains(got, "AOTCacheOutput") || strings.Count(got, "-XX:AOTCache=") != 1 || strings.Count(got, "-Xlog:aot") != 1 {
		t.Errorf("JAVA_OPTS %q, want one -XX:AOTCache and no AOTCacheOutput", got)
	}
	if m := mountsOf(containerNamed(brokerStatefulSets(objects(t, out))[0], "containers", "broker"))["warmup-aot-cache"]; m["readOnly"] != true {
		t.Errorf("cache mount %v after the switch to use, want read-only", m)
	}
}

func TestAOTCacheErrorsNameTheValue(t *testing.T) {
	for _, tc := range []struct{ name, values, want string }{
		{"no volume", "brokerJvm: {aotCache: {enabled: true}}\nwarmup: {tables: [t]}\n", "brokerJvm.aotCache.volume is required"},
		{"bad mode", "brokerJvm: {aotCache: {enabled: true, mode: write, volume: {emptyDir: {}}}}\nwarmup: {tables: [t]}\n", "mode"},
		{"key not a file name", "brokerJvm: {aotCache: {enabled: true, key: a/b, volume: {emptyDir: {}}}}\nwarmup: {tables: [t]}\n", "key"},
		{"broker without image or key", aotValues + "warmup: {tables: [t]}\n", "brokerJvm.aotCache.key is required"},
		{"broker without JAVA_OPTS", aotValues + "    key: k\nwarmup: {tables: [t]}\n", "no env JAVA_OPTS with a literal value to add \"-XX:AOTCache=/var/lib/pinot-aot/k.aot"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := fixture(t, "default.yaml")
			if strings.HasPrefix(tc.name, "broker without") { // no image, no JAVA_OPTS
				in = []byte(brokerOnly(8099))
			}
			out, stderr, code := runInject(t, in, "--values", writeValues(t, tc.values))
			if code == 0 || out != "" || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, stdout %d bytes, stderr %q; want a failure naming %q", code, len(out), stderr, tc.want)
			}
		})
	}
}

// The umbrella path renders the same options, volumes and mounts, given the key inject derives.
func TestUmbrellaAOTCacheMatchesInject(t *testing.T) {
	for _, mode := range []string{"use", "train"} {
		values := aotValues + "    mode: " + mode + "\n    key: apachepinot-pinot-latest\nwarmup: {controllerUrl: http://pinot-controller:9000}\n"
		rendered, defaults := renderUmbrella(t, umbrellaValues(t, values))
		sts := brokerStatefulSets(rendered)[0]
		base, _ := defaults["broker"].(map[string]any)["jvmOpts"].(string)
		want := map[string]string{"use": aotUse, "train": aotTrain}[mode]
		if got := envOf(containerNamed(sts, "containers", "broker"))["JAVA_OPTS"]; got != base+" "+want {
			t.Errorf("%s: umbrella JAVA_OPTS %q, want %q", mode, got, base+" "+want)
		}
		injected := brokerStatefulSets(objects(t, mustInject(t, fixture(t, "default.yaml"), "--values", writeValues(t, values))))[0]
		got, wantMounts := mountsOf(containerNamed(sts, "containers", "broker")), mountsOf(containerNamed(injected, "containers", "broker"))
		delete(got, "config")
		delete(wantMounts, "config")
		if !reflect.DeepEqual(got, wantMounts) {
			t.Errorf("%s: broker mounts\numbrella: %v\ninject:   %v", mode, got, wantMounts)
		}
		if g, w := sidecarParts(sts), sidecarParts(injected); !reflect.DeepEqual(g, w) {
			t.Errorf("%s: sidecar parts differ\numbrella: %#v\ninject:   %#v", mode, g, w)
		}
	}
}
