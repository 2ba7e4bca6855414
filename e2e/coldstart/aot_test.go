package coldstart

import (
	"strings"
	"testing"
)

// The study reads restarts with the product's classifier (internal/aotlog has the cases).
func TestClassifyAOTLogIsTheProducts(t *testing.T) {
	got := ClassifyAOTLog("[0.010s][info][aot] Opened AOT cache /w/aot/on_aot.aot.\n")
	if got.State != AOTUsed || len(got.Evidence) != 1 || !strings.Contains(got.Evidence[0], "Opened AOT cache") {
		t.Errorf("%q %q, want used with the opened line", got.State, got.Evidence)
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

func TestJavaVersion(t *testing.T) {
	for out, want := range map[string]string{
		"openjdk version \"25.0.3\" 2026-04-21 LTS\nOpenJDK Runtime Environment Temurin-25.0.3+9 (build 25.0.3+9-LTS)\n": "25.0.3",
		"openjdk version \"17.0.15\" 2025-04-15\n": "17.0.15",
		"Error: could not find libjava.so\n":       "",
	} {
		if got := JavaVersion(out); got != want {
			t.Errorf("JavaVersion(%q) = %q, want %q", out, got, want)
		}
	}
}

func TestJDKMajor(t *testing.T) {
	for line, want := range map[string]int{
		`openjdk version "25.0.3" 2026-04-21 LTS`: 25,
		`openjdk version "17.0.15" 2025-04-15`:    17,
		`java version "1.8.0_392"`:                1,
		"unknown (exit status 1)":                 0,
	} {
		if got := (JDK{Version: line}).Major(); got != want {
			t.Errorf("JDK{%q}.Major() = %d, want %d", line, got, want)
		}
	}
}
