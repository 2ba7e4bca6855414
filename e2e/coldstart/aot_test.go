package coldstart

import (
	"strings"
	"testing"
)

// Lines as HotSpot's -Xlog:aot / -Xlog:cds print them (JDK 24–25): a cache is used only when
// the log says it was opened and nothing says it was refused.
func TestClassifyAOTLog(t *testing.T) {
	for _, tc := range []struct {
		name, log, want, evidence string
	}{
		{"opened and linked", "[0.010s][info][aot] Opened AOT cache /w/aot/on_aot.aot.\n[0.011s][info][aot] Using AOT-linked classes: true (static archive: has aot-linked classes)\n",
			AOTUsed, "[0.010s][info][aot] Opened AOT cache /w/aot/on_aot.aot."},
		{"other JDK build", "[0.004s][info][aot] Opened AOT cache /w/aot/on_aot.aot.\n[0.004s][info][aot] The AOT cache was created by a different version or build of HotSpot\n[0.005s][warning][aot] Unable to use AOT cache.\n",
			AOTRejected, "[0.004s][info][aot] The AOT cache was created by a different version or build of HotSpot"},
		{"GC mismatch", "[0.164s][warning][aot] Unable to use AOT cache.\n[0.164s][error  ][aot] An error has occurred while processing the AOT cache. Run with -Xlog:aot for details.\n",
			AOTRejected, "[0.164s][warning][aot] Unable to use AOT cache."},
		// Temurin 25.0.3, the broker's cache read by a JVM with another classpath (2026-12-03).
		{"classpath mismatch, real", "[0.007s][info][aot] Opened AOT cache /w/broker.aot.\n" +
			"[0.055s][warning][aot] Required classpath entry does not exist: pinot-controller-1.5.1.jar\n" +
			"[0.055s][error  ][aot] An error has occurred while processing the AOT cache. Run with -Xlog:aot for details.\n" +
			"[0.055s][error  ][aot] shared class paths mismatch (hint: enable -Xlog:class+path=info to diagnose the failure)\n" +
			"[0.060s][error  ][aot] Unable to map shared spaces\n", AOTRejected, "An error has occurred while processing the AOT cache"},
		// Temurin 25.0.3, the broker restarted from its own cache (2026-12-03): AOT code-cache
		// adapter warnings do not make the class cache unused.
		{"used, real", "[0.041s][info][aot] trying to map /w/broker.aot\n[0.041s][info][aot] Opened AOT cache /w/broker.aot.\n" +
			"[0.473s][info][aot] Using AOT-linked classes: true (static archive: has aot-linked classes)\n" +
			"[0.475s][warning][aot] Failed to link AdapterHandlerEntry (fp=LLLLLLLILLLL) to its code in the AOT code cache\n", AOTUsed, "Opened AOT cache /w/broker.aot."},
		{"linked classes off", "[0.01s][info][aot] Opened AOT cache c.aot.\n[0.01s][info][aot] Using AOT-linked classes: false\n", AOTRejected, "Using AOT-linked classes: false"},
		{"silent log", "[0.01s][info][gc] Using G1\n", AOTNoEvidence, ""},
		{"empty log", "", AOTNoEvidence, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := ClassifyAOTLog(tc.log)
			if got.State != tc.want {
				t.Errorf("state %q, want %q (evidence %q)", got.State, tc.want, got.Evidence)
			}
			if tc.evidence != "" && (len(got.Evidence) == 0 || !strings.Contains(got.Evidence[0], tc.evidence)) {
				t.Errorf("evidence %q, want first %q", got.Evidence, tc.evidence)
			}
		})
	}
}

func TestArmBase(t *testing.T) {
	for arm, want := range map[string]string{"on_default": "on_default", "on_default.jdk25": "on_default", "on_aot.probes.2": "on_aot", "": ""} {
		if got := ArmBase(arm); got != want {
			t.Errorf("ArmBase(%q) = %q, want %q", arm, got, want)
		}
	}
	for arm, want := range map[string]bool{"on_aot": true, "on_aot_load.x": true, "on_default": false, "on_c1": false} {
		if IsAOTArm(arm) != want {
			t.Errorf("IsAOTArm(%q) = %v", arm, !want)
		}
	}
}

// The broker JVM table names each arm's JDK and its AOT cache's state per restart; a rejected
// cache is said in bold, never counted as used.
func TestJVMMarkdownNamesJDKAndCacheState(t *testing.T) {
	used := &AOTCacheUse{State: AOTUsed, Evidence: []string{"[info][aot] Opened AOT cache /w/aot/on_aot.aot."}}
	rejected := &AOTCacheUse{State: AOTRejected, Evidence: []string{"[warning][aot] Unable to use AOT cache."}}
	r := func(u *AOTCacheUse) Restart {
		return Restart{HealthySeconds: 20, ReadySeconds: 30, AOTCache: u, Diagnostics: &Diagnostics{Cold: WindowDiag{BrokerCompilerCPUSeconds: 3.5}}}
	}
	s := &Study{
		PinotVersion: "1.5.1", RateQPS: 50, Machine: Machine{Java: `openjdk version "17.0.13"`},
		ArmBrokerJava: map[string]JDK{"on_aot": {Java: "/jdk25/bin/java", Version: `openjdk version "25.0.1" 2025-10-21 LTS`}},
		Arms: map[string]*Arm{
			ArmOnDefault: {Restarts: []Restart{r(nil), r(nil)}},
			ArmOnAOT: {Restarts: []Restart{r(used), r(rejected), r(&AOTCacheUse{State: AOTNoEvidence})},
				AOTTraining: &AOTTraining{JDK: JDK{Version: `openjdk version "25.0.1"`}, Workload: "the sidecar's default probes", Cache: "/w/aot/on_aot.aot", CacheBytes: 91_500_000, Seconds: 95, ExitSeconds: 31}},
		},
	}
	md := Markdown(s)
	for _, want := range []string{
		"| broker JVM | on_default | on_aot |",
		`| JDK | openjdk version "17.0.13" | openjdk version "25.0.1" 2025-10-21 LTS |`,
		"| AOT cache | — | used in 1 of 3, **rejected in 1**, **no evidence in 1** |",
		"| broker start → /health 200 (s) | **20.0** / [20.0 – 20.0] |",
		"| cold-window compiler CPU (s) | **3.5** / [3.5 – 3.5] |",
		"Arm on_aot's AOT cache `/w/aot/on_aot.aot` (91.5 MB): trained by the sidecar's default probes on openjdk version \"25.0.1\" in 95 s (JVM exit after SIGTERM 31 s).",
		"Arm on_aot restart 1, AOT cache used: `[info][aot] Opened AOT cache /w/aot/on_aot.aot.`",
	} {
		mustContain(t, "markdown", md, want)
	}
}
