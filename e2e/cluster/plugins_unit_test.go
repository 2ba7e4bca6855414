package cluster

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The image's plugins are picked by artifact, whatever the version, and sorted by where they go.
func TestImagePluginsPicksThePluginJars(t *testing.T) {
	got := ImagePlugins([]string{
		"/lib/pinot-yammer-1.5.1.jar",
		"/lib/pinot-kafka-3.0-1.5.1.jar",
		"/lib/pinot-kafka-base-1.5.1.jar", // inside the image's kafka-3.0 jar, not a plugin dir of its own
		"/lib/pinot-broker-1.5.1.jar",
		"/lib/pinot-csv-1.6.0-shaded.jar",
		"/lib/pinot-dropwizard-1.5.1.jar",
		"/lib/README",
	})
	want := []ImagePlugin{
		{"/lib/pinot-csv-1.6.0-shaded.jar", "pinot-input-format/pinot-csv/pinot-csv-1.6.0-shaded.jar"},
		{"/lib/pinot-dropwizard-1.5.1.jar", "pinot-metrics/pinot-dropwizard/pinot-dropwizard-1.5.1.jar"},
		{"/lib/pinot-yammer-1.5.1.jar", "pinot-metrics/pinot-yammer/pinot-yammer-1.5.1.jar"},
		{"/lib/pinot-kafka-3.0-1.5.1.jar", "pinot-stream-ingestion/pinot-kafka-3.0/pinot-kafka-3.0-1.5.1.jar"},
	}
	if len(got) != len(want) {
		t.Fatalf("got %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("[%d] = %q, want %q", i, got[i], want[i])
		}
	}
}

// The broker with the image's layout: lib/* first, then each plugin jar, and -Dplugins.dir; the
// other roles keep lib/* alone.
func TestImagePluginArgsFollowLibOnTheClassPath(t *testing.T) {
	c := &Cluster{work: t.TempDir(), lib: "/lib"}
	opts, cp := ImagePluginArgs("/w/plugins", []ImagePlugin{{"/lib/pinot-yammer-1.5.1.jar", "pinot-metrics/pinot-yammer/pinot-yammer-1.5.1.jar"}})
	argv, err := c.jvmArgv("broker", "java", opts, cp, "StartBroker")
	if err != nil {
		t.Fatal(err)
	}
	line := strings.Join(argv, " ")
	if !strings.Contains(line, " -Dplugins.dir=/w/plugins ") ||
		!strings.Contains(line, " -cp /lib/*:/w/plugins/pinot-metrics/pinot-yammer/pinot-yammer-1.5.1.jar "+AdminMain+" StartBroker") {
		t.Errorf("argv %q", line)
	}
	other, err := c.jvmArgv("server1", "java", nil, nil, "StartServer")
	if err != nil {
		t.Fatal(err)
	}
	if line := strings.Join(other, " "); !strings.Contains(line, " -cp /lib/* "+AdminMain) || strings.Contains(line, "plugins") {
		t.Errorf("server argv %q", line)
	}
}

// The layout copies each plugin jar to its dir (a file of its own) and says when there is none.
func TestLayImagePlugins(t *testing.T) {
	lib := t.TempDir()
	for name, body := range map[string]string{"pinot-yammer-1.5.1.jar": "yammer", "pinot-broker-1.5.1.jar": "broker"} {
		if err := os.WriteFile(filepath.Join(lib, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c := &Cluster{work: t.TempDir(), lib: lib}
	dir, plugins, err := c.layImagePlugins()
	if err != nil || len(plugins) != 1 {
		t.Fatalf("%q %v", plugins, err)
	}
	dst := filepath.Join(dir, "pinot-metrics", "pinot-yammer", "pinot-yammer-1.5.1.jar")
	fi, err := os.Lstat(dst)
	if err != nil || !fi.Mode().IsRegular() {
		t.Fatalf("%s: %v %v, want a regular file", dst, fi, err)
	}
	if b, _ := os.ReadFile(dst); string(b) != "yammer" {
		t.Errorf("%s holds %q", dst, b)
	}
	if _, _, err := (&Cluster{work: t.TempDir(), lib: t.TempDir()}).layImagePlugins(); err == nil || !strings.Contains(err.Error(), "no jar the image ships as a plugin") {
		t.Errorf("empty lib: %v", err)
	}
}
