package cluster

import (
	"bufio"
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// LoaderClasses reads `jcmd <pid> VM.classloader_stats`: the classes each class loader type
// defined, summed over its instances ("<boot class loader>", "jdk.internal.loader.ClassLoaders$AppClassLoader",
// "org.apache.pinot.spi.plugin.PluginClassLoader"...). Hidden classes, which the JVM prints on a
// line of their own under their loader, are left out. Instances counts each type's loaders (by
// address: one loader may have several class loader data rows). A loader that never defined a
// class has no class loader data and is not listed.
func LoaderClasses(stats string) (classes, instances map[string]int, err error) {
	classes, instances = map[string]int{}, map[string]int{}
	seen := map[string]bool{}
	sc := bufio.NewScanner(strings.NewReader(stats))
	header := false
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		switch {
		case len(f) > 0 && f[0] == "ClassLoader":
			header = true
		case header && len(f) >= 7 && strings.HasPrefix(f[0], "0x"):
			n, err := strconv.Atoi(f[3])
			if err != nil {
				return nil, nil, fmt.Errorf("classloader_stats: classes %q on line %q: %w", f[3], sc.Text(), err)
			}
			typ := strings.Join(f[6:], " ")
			classes[typ] += n
			if !seen[f[0]] {
				seen[f[0]] = true
				instances[typ]++
			}
		}
	}
	if !header {
		return nil, nil, fmt.Errorf("classloader_stats: no header line (want \"ClassLoader Parent CLD* Classes ...\") in %.200q", stats)
	}
	return classes, instances, sc.Err()
}

// ClassLoaderStats runs the JDK's jcmd (beside java) against pid: VM.classloader_stats.
func ClassLoaderStats(ctx context.Context, java string, pid int) (string, error) {
	jcmd := filepath.Join(filepath.Dir(java), "jcmd")
	out, err := exec.CommandContext(ctx, jcmd, strconv.Itoa(pid), "VM.classloader_stats").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("%s %d VM.classloader_stats: %w: %.300s", jcmd, pid, err, out)
	}
	return string(out), nil
}

// classLoadTag is the class+load tag set alone (not class+load+cause...), as HotSpot's unified
// logging decorates it, padded or not.
var classLoadTag = regexp.MustCompile(`\[class,load\s*\]`)

// ClassLoadSources reads a JVM's -Xlog:class+load=info output: how many classes were loaded from
// each source as the JVM names it ("shared objects file" for the AOT cache or CDS archive,
// "jrt:/java.base", "file:/…/x.jar", "instance of <loader class>", "__JVM_LookupDefineClass__"…).
func ClassLoadSources(log string) map[string]int {
	out := map[string]int{}
	for _, line := range strings.Split(log, "\n") {
		if !classLoadTag.MatchString(line) {
			continue
		}
		_, src, ok := strings.Cut(line, " source: ")
		if !ok {
			continue
		}
		out[strings.TrimSpace(src)]++
	}
	return out
}
