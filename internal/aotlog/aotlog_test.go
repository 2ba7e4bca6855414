package aotlog

import (
	"os"
	"strings"
	"testing"
)

func TestClassify(t *testing.T) {
	for _, tc := range []struct {
		name, log, want, evidence string
	}{
		{"opened and linked", "[0.010s][info][aot] Opened AOT cache /w/aot/on_aot.aot.\n[0.011s][info][aot] Using AOT-linked classes: true (static archive: has aot-linked classes)\n",
			Used, "[0.010s][info][aot] Opened AOT cache /w/aot/on_aot.aot."},
		{"other JDK build", "[0.004s][info][aot] Opened AOT cache /w/aot/on_aot.aot.\n[0.004s][info][aot] The AOT cache was created by a different version or build of HotSpot\n[0.005s][warning][aot] Unable to use AOT cache.\n",
			Rejected, "[0.004s][info][aot] The AOT cache was created by a different version or build of HotSpot"},
		{"GC mismatch", "[0.164s][warning][aot] Unable to use AOT cache.\n[0.164s][error  ][aot] An error has occurred while processing the AOT cache. Run with -Xlog:aot for details.\n",
			Rejected, "[0.164s][warning][aot] Unable to use AOT cache."},
		// Temurin 25.0.3, the broker's cache read by a JVM with another classpath (docs/pinot-facts.md).
		{"classpath mismatch, real", "[0.007s][info][aot] Opened AOT cache /w/broker.aot.\n" +
			"[0.055s][warning][aot] Required classpath entry does not exist: pinot-controller-1.5.1.jar\n" +
			"[0.055s][error  ][aot] An error has occurred while processing the AOT cache. Run with -Xlog:aot for details.\n" +
			"[0.055s][error  ][aot] shared class paths mismatch (hint: enable -Xlog:class+path=info to diagnose the failure)\n" +
			"[0.060s][error  ][aot] Unable to map shared spaces\n", Rejected, "An error has occurred while processing the AOT cache"},
		// Temurin 25.0.3, -XX:AOTCache=/missing.aot (the lines as the JVM printed them, without
		// uptime decoration, the last two as quoted without their tags): the generic error lines that follow do not make it rejected.
		{"missing file", "[info][aot] Specified AOT cache not found (/missing.aot)\n" +
			"[error][aot] An error has occurred while processing the AOT cache. Run with -Xlog:aot for details.\n" +
			"Loading static archive failed\nUnable to map shared spaces\n", Absent, "Specified AOT cache not found (/missing.aot)"},
		{"linked classes off", "[0.01s][info][aot] Opened AOT cache c.aot.\n[0.01s][info][aot] Using AOT-linked classes: false\n", Rejected, "Using AOT-linked classes: false"},
		{"silent log", "[0.01s][info][gc] Using G1\n", NoEvidence, ""},
		{"empty log", "", NoEvidence, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Classify(tc.log)
			if got.State != tc.want {
				t.Errorf("state %q, want %q (evidence %q)", got.State, tc.want, got.Evidence)
			}
			if tc.evidence != "" && (len(got.Evidence) == 0 || !strings.Contains(got.Evidence[0], tc.evidence)) {
				t.Errorf("evidence %q, want first %q", got.Evidence, tc.evidence)
			}
			if tc.evidence == "" && len(got.Evidence) != 0 {
				t.Errorf("evidence %q for %s, want none", got.Evidence, got.State)
			}
		})
	}
}

// Lines of the real study logs (Temurin 25.0.3, Pinot 1.5.1 broker, 2026-12-03), trimmed: a
// restart from the sidecar-trained cache, and the training broker's start; and whole logs of
// `java -XX:AOTCache=<file> -version` on a trained cache cut to 50 MB and on a file of random bytes:
// the JVM's reason comes first in the evidence, before its generic error lines.
func TestClassifyRealLogs(t *testing.T) {
	for file, want := range map[string]struct{ state, first string }{
		"used.log":               {Used, "Opened AOT cache"},
		"training.log":           {Training, "Selected AOTMode=record because AOTCacheOutput is specified"},
		"rejected-truncated.log": {Rejected, "The AOT cache has been truncated."},
		"rejected-bad-magic.log": {Rejected, "The AOT cache has a bad magic number"},
	} {
		b, err := os.ReadFile("testdata/" + file)
		if err != nil {
			t.Fatal(err)
		}
		got := Classify(string(b))
		if got.State != want.state || len(got.Evidence) == 0 || !strings.Contains(got.Evidence[0], want.first) {
			t.Errorf("%s: %q %q, want %s with first line containing %q", file, got.State, got.Evidence, want.state, want.first)
		}
	}
}

func TestEvidenceIsBounded(t *testing.T) {
	got := Classify(strings.Repeat("[0.1s][error][aot] Unable to map shared spaces\n", 3*MaxEvidence))
	if got.State != Rejected || len(got.Evidence) != MaxEvidence {
		t.Errorf("%s with %d lines, want rejected with %d", got.State, len(got.Evidence), MaxEvidence)
	}
}
