//go:build e2e

package cluster_test

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/e2e/cluster"
	"github.com/warmup-sidecar/warmup-sidecar/e2e/coldstart"
)

const pluginLoader = "org.apache.pinot.spi.plugin.PluginClassLoader"

// TestAOTCacheWithImagePlugins asks issue 28's pitfall "classes from Pinot's plugin class loader
// may not be cached" of a real broker on another JDK (WARMUP_E2E_BROKER_JAVA, with
// WARMUP_E2E_AOT=1). For the harness's layout (every jar on -cp lib/*) and then the official
// image's (WithImagePlugins: the plugin jars also in a plugins dir appended to the class path,
// -Dplugins.dir) it trains an AOT cache (-XX:AOTCacheOutput, queries on both engines, SIGTERM),
// restarts from it and reports: how many plugin dirs PluginManager gave a loader (its log), the
// classes each loader type defined (jcmd VM.classloader_stats, PluginClassLoader among them), the cache's class table and what it skipped and why (the
// training JVMs' -Xlog:aot), whether the restart used the cache, and where its classes came from
// (-Xlog:class+load: the cache, the JDK, a lib jar, a plugin jar).
//
//	WARMUP_E2E_BROKER_JAVA=/usr/lib/jvm/temurin-25-jdk-amd64 WARMUP_E2E_AOT=1 WARMUP_E2E_BASE_PORT=26000 \
//	  go test -tags e2e -count=1 -v -timeout 40m -run TestAOTCacheWithImagePlugins ./e2e/cluster/
func TestAOTCacheWithImagePlugins(t *testing.T) {
	if os.Getenv("WARMUP_E2E_AOT") != "1" {
		t.Skip("needs WARMUP_E2E_AOT=1 (and WARMUP_E2E_BROKER_JAVA naming a JDK 25+)")
	}
	java := brokerJava(t)
	c := startJDKCluster(t)

	for _, image := range []bool{false, true} {
		name := map[bool]string{false: "lib", true: "image"}[image]
		t.Run(name, func(t *testing.T) { trainAndRestart(t, c, java, name, image) })
	}
}

// trainAndRestart trains a cache with the broker in one layout, restarts from it, and reports.
func trainAndRestart(t *testing.T, c *cluster.Cluster, java, name string, image bool) {
	logs := filepath.Join(c.WorkDir(), "logs")
	cache := filepath.Join(c.WorkDir(), name+".aot")
	start := func(phase string, opts ...string) {
		t.Helper()
		if err := c.KillBroker(); err != nil {
			t.Fatal(err)
		}
		logStart := fileSize(c.LogPath("broker"))
		if err := c.StartBroker(t.Context(), cluster.WithBrokerJava(java), cluster.WithImagePlugins(image),
			cluster.WithBrokerJVMOpts(append(slices.Clone(chartBrokerOpts), opts...)...)); err != nil {
			t.Fatal(err)
		}
		if err := c.WaitBrokerHealthy(t.Context()); err != nil {
			t.Fatalf("%s: never healthy: %v (%s)", phase, err, firstException(t, c.LogPath("broker")))
		}
		cmdline, _ := os.ReadFile("/proc/" + strconv.Itoa(c.BrokerPID()) + "/cmdline")
		args := strings.Split(string(cmdline), "\x00")
		if hasPluginsDir := slices.ContainsFunc(args, func(a string) bool { return strings.HasPrefix(a, "-Dplugins.dir=") }); hasPluginsDir != image {
			t.Fatalf("%s: -Dplugins.dir on the command line: %v, want %v (%q)", phase, hasPluginsDir, image, args)
		}
		// PluginManager's own line per plugin dir it gave a PluginClassLoader (in the image's layout).
		b, _ := os.ReadFile(c.LogPath("broker"))
		loaded := strings.Count(string(b[min(logStart, int64(len(b))):]), "Successfully Loaded plugin [")
		t.Logf("%s %s: PluginManager loaded %d plugin dirs", name, phase, loaded)
		if image != (loaded > 0) {
			t.Fatalf("%s %s: PluginManager loaded %d plugin dirs, want some only in the image's layout", name, phase, loaded)
		}
		queryBothEngines(t, c)
	}
	loaders := func(phase string) {
		t.Helper()
		stats, err := cluster.ClassLoaderStats(t.Context(), java, c.BrokerPID())
		if err != nil {
			t.Fatal(err)
		}
		_ = os.WriteFile(filepath.Join(logs, fmt.Sprintf("classloaders-%s-%s.txt", name, phase)), []byte(stats), 0o644)
		classes, instances, err := cluster.LoaderClasses(stats)
		if err != nil {
			t.Fatal(err)
		}
		// A loader that never defined a class has no class loader data and is not listed: the
		// plugin loaders PluginManager made are counted by its log lines above.
		t.Logf("%s %s: classes per loader type %v; %s: %d defined %d classes",
			name, phase, classes, pluginLoader, instances[pluginLoader], classes[pluginLoader])
	}

	trainLog := filepath.Join(logs, "aot-"+name+"-train-%p.log")
	start("training", "-XX:AOTCacheOutput="+cache,
		"-Xlog:aot=info,cds=info,aot+class=debug:file="+trainLog+":uptime,level,tags")
	loaders("training")
	stop := time.Now()
	if err := c.Broker(0).Terminate(t.Context(), 5*time.Minute); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(cache)
	if err != nil {
		t.Fatalf("no AOT cache %s after the training broker's exit (%s): %v", cache, time.Since(stop).Round(time.Second), err)
	}
	t.Logf("%s: AOT cache %d bytes, JVM exit %s after SIGTERM", name, fi.Size(), time.Since(stop).Round(time.Second))
	// One log per JVM: the training broker's, then the child JVM that assembled the cache.
	trained, _ := filepath.Glob(filepath.Join(logs, "aot-"+name+"-train-*.log"))
	for _, f := range trained {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		log := string(b)
		t.Logf("%s: %s: skipped, by reason: %v", name, filepath.Base(f), coldstart.AOTSkips(log))
		if census := coldstart.AOTClassCounts(log); len(census) > 0 {
			t.Logf("%s: %s: the cache's classes: %+v; user-defined loaders' classes stored: %q",
				name, filepath.Base(f), census, unregistered(log))
		}
	}

	runLog := filepath.Join(logs, "aot-"+name+"-run.log")
	loadLog := filepath.Join(logs, "aot-"+name+"-run-classload.log")
	start("from the cache", "-XX:AOTCache="+cache, "-Xlog:aot=info,cds=info:file="+runLog+":uptime,level,tags",
		"-Xlog:class+load=info:file="+loadLog+":uptime,level,tags")
	loaders("restart")
	b, err := os.ReadFile(runLog)
	if err != nil {
		t.Fatal(err)
	}
	use := coldstart.ClassifyAOTLog(string(b))
	t.Logf("%s: AOT cache %s; the JVM's lines: %q", name, use.State, use.Evidence)
	if use.State != coldstart.AOTUsed {
		t.Errorf("%s: the broker did not use its AOT cache (%s): see %s", name, use.State, runLog)
	}
	lb, err := os.ReadFile(loadLog)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s: classes loaded by the restart, by source: %s", name, summarizeSources(cluster.ClassLoadSources(string(lb)), c.LibDir(), filepath.Join(c.WorkDir(), "plugins")))
}

func fileSize(path string) int64 {
	fi, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return fi.Size()
}

// unregistered names the classes the assembling JVM stored for user-defined loaders: its
// -Xlog:aot+class=debug lines ",class ... unreg <name>".
func unregistered(log string) []string {
	var out []string
	for _, line := range strings.Split(log, "\n") {
		_, after, ok := strings.Cut(line, " unreg ")
		if f := strings.Fields(after); ok && len(f) > 0 && f[0] != "=" {
			out = append(out, f[0])
		}
	}
	return out
}

// summarizeSources groups -Xlog:class+load sources: the cache, the JDK's modules, the lib dir's
// jars, the plugins dir's jars, the JVM's own markers (__dynamic_proxy__...), and classes the JVM
// names by their host class (lambda forms and other hidden classes).
func summarizeSources(sources map[string]int, lib, plugins string) string {
	groups := map[string]int{}
	for src, n := range sources {
		path := strings.TrimPrefix(src, "file:")
		switch {
		case strings.HasPrefix(src, "shared objects file"):
			groups["AOT cache"] += n
		case strings.HasPrefix(src, "jrt:/"):
			groups["JDK modules (jrt)"] += n
		case strings.HasPrefix(path, plugins+"/"):
			groups["plugins dir jars"] += n
		case strings.HasPrefix(path, lib+"/"):
			groups["lib jars"] += n
		case strings.HasPrefix(src, "__"):
			groups[src] += n // __dynamic_proxy__, __JVM_LookupDefineClass__...
		default:
			groups["hidden and generated classes named by their host class"] += n
		}
	}
	keys := slices.Sorted(maps.Keys(groups))
	slices.SortStableFunc(keys, func(a, b string) int { return groups[b] - groups[a] })
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s %d", k, groups[k]))
	}
	return strings.Join(parts, ", ")
}
