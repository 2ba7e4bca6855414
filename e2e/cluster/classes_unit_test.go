package cluster

import (
	"os"
	"strings"
	"testing"
)

// jcmd's VM.classloader_stats: classes summed per loader type, hidden classes left out.
func TestLoaderClasses(t *testing.T) {
	stats := `12345:
ClassLoader         Parent              CLD*               Classes   ChunkSz   BlockSz  Type
0x00007f0000001000  0x00007f0000002000  0x00007f1000000001       3     10240      4888  org.apache.pinot.spi.plugin.PluginClassLoader
0x00007f0000001100  0x00007f0000002000  0x00007f1000000002       0         0         0  org.apache.pinot.spi.plugin.PluginClassLoader
0x00007f0000002000  0x00007f0000003000  0x00007f1000000003    9000   5000000   4900000  jdk.internal.loader.ClassLoaders$AppClassLoader
                                                                   40     81920     60000   + hidden classes
0x0000000000000000  0x0000000000000000  0x00007f1000000004    2500   3000000   2900000  <boot class loader>
Total = 4                                                      11503   8000000   7800000
ChunkSz: Total size of all allocated metaspace chunks
`
	classes, instances, err := LoaderClasses(stats)
	if err != nil {
		t.Fatal(err)
	}
	for typ, want := range map[string]int{
		"org.apache.pinot.spi.plugin.PluginClassLoader":   3,
		"jdk.internal.loader.ClassLoaders$AppClassLoader": 9000,
		"<boot class loader>":                             2500,
	} {
		if classes[typ] != want {
			t.Errorf("%s: %d classes, want %d (all: %v)", typ, classes[typ], want, classes)
		}
	}
	if instances["org.apache.pinot.spi.plugin.PluginClassLoader"] != 2 || len(classes) != 3 {
		t.Errorf("instances %v, classes %v", instances, classes)
	}
	if _, _, err := LoaderClasses("12345:\nCommand not found\n"); err == nil || !strings.Contains(err.Error(), "no header line") {
		t.Errorf("no header: %v", err)
	}
	if _, _, err := LoaderClasses("ClassLoader Parent CLD* Classes ChunkSz BlockSz Type\n0x1 0x2 0x3 many 1 1 X\n"); err == nil || !strings.Contains(err.Error(), `classes "many"`) {
		t.Errorf("bad count: %v", err)
	}
}

// The real thing: the image-layout broker on Temurin 25.0.3 after training (jcmd's Total line, 18,909,
// counts the 383 hidden classes too); five class loader data rows of one ByteArrayClassLoader.
func TestLoaderClassesReal(t *testing.T) {
	b, err := os.ReadFile("testdata/classloader_stats.txt")
	if err != nil {
		t.Fatal(err)
	}
	classes, instances, err := LoaderClasses(string(b))
	if err != nil {
		t.Fatal(err)
	}
	sum := 0
	for _, n := range classes {
		sum += n
	}
	bal := "org.codehaus.commons.compiler.util.reflect.ByteArrayClassLoader"
	if sum != 18909-383 || classes["jdk.internal.loader.ClassLoaders$AppClassLoader"] != 14271 ||
		classes["<boot class loader>"] != 4194 || classes[bal] != 5 || instances[bal] != 1 {
		t.Errorf("sum %d, classes %v, instances %v", sum, classes, instances)
	}
	if _, ok := classes["org.apache.pinot.spi.plugin.PluginClassLoader"]; ok {
		t.Errorf("a PluginClassLoader listed: %v", classes)
	}
}

// -Xlog:class+load: classes counted per source as the JVM names it.
func TestClassLoadSources(t *testing.T) {
	log := `[0.011s][info][class,load] java.lang.Object source: shared objects file
[0.012s][info][class,load] java.lang.String source: shared objects file
[0.400s][info][class,load] org.apache.pinot.plugin.metrics.yammer.YammerMetricsFactory source: file:/w/lib/pinot-yammer-1.5.1.jar
[0.401s][info][class,load] jdk.proxy2.$Proxy9 source: __dynamic_proxy__
[0.402s][info][class,load,cause] not a load line source: nothing
[0.403s][info][gc] Using G1
`
	got := ClassLoadSources(log)
	want := map[string]int{"shared objects file": 2, "file:/w/lib/pinot-yammer-1.5.1.jar": 1, "__dynamic_proxy__": 1}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %d, want %d", k, got[k], v)
		}
	}
}
