//go:build e2e

package cluster_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/warmup-sidecar/warmup-sidecar/e2e/coldstart"
)

// staleJarFacts is what docs/pinot-facts.md says a JDK does with a one-step AOT cache whose class
// path jar was rebuilt at the same path: "stale" (runs the old class, from the cache) or "fresh"
// (runs the rebuilt one: the cache refused, or the class read from the jar).
// Temurin 25.0.3 has JDK-8377932 (fixed upstream for 25.0.4).
var staleJarFacts = map[string]string{"25.0.3": "stale"}

// TestFactAOTCacheAndAChangedJar pins the facts page's claim on WARMUP_E2E_BROKER_JAVA's JDK: a toy
// on a JDK 25+ (Main calls C.c() from c.jar) is trained with -XX:AOTCacheOutput, c.jar is rebuilt so C.c()
// answers otherwise, and Main runs from the cache. It fails when the JDK does something the page
// does not say for that version (add the version to the page and to staleJarFacts).
func TestFactAOTCacheAndAChangedJar(t *testing.T) {
	java := brokerJava(t)
	version := coldstart.JavaVersion(mustRun(t, java, "-version"))
	bin := filepath.Dir(java)
	dir := t.TempDir()
	write := func(name, body string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	jar := func(jarName, class, body string) {
		t.Helper()
		write(class+".java", body)
		out := filepath.Join(dir, "classes-"+jarName)
		mustRun(t, filepath.Join(bin, "javac"), "-cp", filepath.Join(dir, "classes-c.jar"), "-d", out, filepath.Join(dir, class+".java"))
		mustRun(t, filepath.Join(bin, "jar"), "cf", filepath.Join(dir, jarName), "-C", out, ".")
	}
	jar("c.jar", "C", "public class C { public static int c() { return 2; } }\n")
	jar("main.jar", "Main", "public class Main { public static void main(String[] a) { System.out.println(\"answer \" + C.c()); } }\n")
	cp := filepath.Join(dir, "main.jar") + ":" + filepath.Join(dir, "c.jar")
	cache := filepath.Join(dir, "toy.aot")
	mustRun(t, java, "-XX:AOTCacheOutput="+cache, "-cp", cp, "Main")
	if got := mustRun(t, java, "-XX:AOTCache="+cache, "-cp", cp, "Main"); !strings.Contains(got, "answer 2") {
		t.Fatalf("from the fresh cache: %q, want answer 2", got)
	}
	if err := os.RemoveAll(filepath.Join(dir, "classes-c.jar")); err != nil {
		t.Fatal(err)
	}
	jar("c.jar", "C", "public class C { public static int c() { return 50; } }\n")
	out := mustRun(t, java, "-XX:AOTCache="+cache, "-Xlog:aot=info", "-Xlog:class+load=info", "-cp", cp, "Main")
	got := "fresh"
	switch {
	case strings.Contains(out, "answer 2") && strings.Contains(out, "C source: shared objects file"):
		got = "stale"
	case !strings.Contains(out, "answer 50"):
		t.Fatalf("after the rebuild: neither the old class from the cache nor the new one: %s", out)
	}
	t.Logf("JDK %s, c.jar rebuilt at the same path: %s; the JVM's lines: %q", version, got, coldstart.ClassifyAOTLog(out).Evidence)
	if want, ok := staleJarFacts[version]; !ok || want != got {
		t.Errorf("JDK %s: %s; docs/pinot-facts.md says %q for it (empty: not documented): update the page and staleJarFacts", version, got, want)
	}
}

func mustRun(t *testing.T, name string, args ...string) string {
	t.Helper()
	out, err := exec.Command(name, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v: %s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}
