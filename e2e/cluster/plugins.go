package cluster

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// imagePluginGroups is where the official apachepinot/pinot image keeps each plugin: the
// plugins/<group>/<plugin>/ directories of pinot-distribution/pinot-assembly.xml (release-1.5.1).
// The plugins-external ones (Hadoop and Spark batch ingestion) are left out, as the image's
// start script leaves them off the class path.
var imagePluginGroups = map[string]string{
	"pinot-kafka-3.0":                  "pinot-stream-ingestion",
	"pinot-kinesis":                    "pinot-stream-ingestion",
	"pinot-pulsar":                     "pinot-stream-ingestion",
	"pinot-batch-ingestion-standalone": "pinot-batch-ingestion",
	"pinot-adls":                       "pinot-file-system",
	"pinot-gcs":                        "pinot-file-system",
	"pinot-hdfs":                       "pinot-file-system",
	"pinot-s3":                         "pinot-file-system",
	"pinot-azure":                      "pinot-environment",
	"pinot-avro":                       "pinot-input-format",
	"pinot-clp-log":                    "pinot-input-format",
	"pinot-confluent-avro":             "pinot-input-format",
	"pinot-csv":                        "pinot-input-format",
	"pinot-json":                       "pinot-input-format",
	"pinot-orc":                        "pinot-input-format",
	"pinot-parquet":                    "pinot-input-format",
	"pinot-thrift":                     "pinot-input-format",
	"pinot-protobuf":                   "pinot-input-format",
	"pinot-confluent-protobuf":         "pinot-input-format",
	"pinot-confluent-json":             "pinot-input-format",
	"pinot-minion-builtin-tasks":       "pinot-minion-tasks",
	"pinot-yammer":                     "pinot-metrics",
	"pinot-dropwizard":                 "pinot-metrics",
	"pinot-segment-writer-file-based":  "pinot-segment-writer",
	"pinot-segment-uploader-default":   "pinot-segment-uploader",
	"pinot-timeseries-m3ql":            "pinot-timeseries-lang",
}

// jarArtifact splits "pinot-kafka-3.0-1.5.1.jar" into the artifact "pinot-kafka-3.0" (the version
// is the last dash-separated part that starts with a digit).
var jarArtifact = regexp.MustCompile(`^(.+?)-\d[^-]*(-shaded)?\.jar$`)

// ImagePlugin is one plugin jar of the lib dir and where the image's plugins dir holds it.
type ImagePlugin struct {
	Jar string // the file in the lib dir
	Rel string // its path under the plugins dir: <group>/<plugin>/<jar>
}

// ImagePlugins picks the jars of lib that the official image ships as plugins, in the order the
// class path lists them (by Rel; the image's start script lists them in `find` order, which is the
// file system's directory order: not specified).
func ImagePlugins(libJars []string) []ImagePlugin {
	var out []ImagePlugin
	for _, jar := range libJars {
		base := filepath.Base(jar)
		m := jarArtifact.FindStringSubmatch(base)
		if m == nil {
			continue
		}
		if group, ok := imagePluginGroups[m[1]]; ok {
			out = append(out, ImagePlugin{Jar: jar, Rel: filepath.Join(group, m[1], base)})
		}
	}
	slices.SortFunc(out, func(a, b ImagePlugin) int { return strings.Compare(a.Rel, b.Rel) })
	return out
}

// ImagePluginArgs are the JVM options and class path tail the image's bin/pinot-admin.sh adds for
// a plugins dir: every plugin jar appended to the class path after lib/*, and -Dplugins.dir, from
// which Pinot's PluginManager builds one PluginClassLoader per plugin directory.
func ImagePluginArgs(dir string, plugins []ImagePlugin) (opts, classpath []string) {
	for _, p := range plugins {
		classpath = append(classpath, filepath.Join(dir, p.Rel))
	}
	return []string{"-Dplugins.dir=" + dir}, classpath
}

// layImagePlugins lays the image's plugins out in <work>/plugins (LayImagePlugins) and returns the
// dir and the plugins.
func (c *Cluster) layImagePlugins() (string, []ImagePlugin, error) {
	dir := filepath.Join(c.work, "plugins")
	plugins, err := LayImagePlugins(c.lib, dir)
	return dir, plugins, err
}

// LayImagePlugins copies the lib dir's plugin jars into dir the way the image lays them out
// (copies, not links, so each is a file of its own as in the image; a jar already there is kept)
// and returns the plugins. The jars stay in the lib dir too: the image's lib jar holds every
// plugin class as well (pinot-tools depends on them and is shaded into it).
func LayImagePlugins(lib, dir string) ([]ImagePlugin, error) {
	jars, err := filepath.Glob(filepath.Join(lib, "*.jar"))
	if err != nil {
		return nil, fmt.Errorf("image plugins: list %s: %w", lib, err)
	}
	plugins := ImagePlugins(jars)
	if len(plugins) == 0 {
		return nil, fmt.Errorf("image plugins: %s holds no jar the image ships as a plugin", lib)
	}
	for _, p := range plugins {
		if err := CopyFile(p.Jar, filepath.Join(dir, p.Rel)); err != nil {
			return nil, fmt.Errorf("image plugins: %w", err)
		}
	}
	return plugins, nil
}

// CopyFile copies src to dst (creating dst's dir) unless dst already exists.
func CopyFile(src, dst string) error {
	if _, err := os.Stat(dst); err == nil {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return fmt.Errorf("copy %s: %w", src, err)
	}
	return out.Close()
}
