package zkclient

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestStartRejectsBadOptionsNamingTheField(t *testing.T) {
	lib := t.TempDir()
	if err := os.WriteFile(filepath.Join(lib, "pinot-java-client-1.5.1.jar"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	good := Options{ZKAddress: "127.0.0.1:24000", Cluster: "c", LibDir: lib, Queries: []string{"SELECT 1"}, QPS: 10}
	if err := good.check(); err != nil {
		t.Fatalf("good options: %v", err)
	}
	for _, tc := range []struct {
		name string
		edit func(*Options)
		want string
	}{
		{"no zk", func(o *Options) { o.ZKAddress = "" }, "ZKAddress is empty"},
		{"no cluster", func(o *Options) { o.Cluster = "" }, "Cluster is empty"},
		{"no lib", func(o *Options) { o.LibDir = "" }, "LibDir is empty"},
		{"lib without the client", func(o *Options) { o.LibDir = t.TempDir() }, "has no pinot-java-client jar"},
		{"no queries", func(o *Options) { o.Queries = nil }, "Queries is empty"},
		{"blank query", func(o *Options) { o.Queries = []string{"SELECT 1", " "} }, "Queries[1] is blank"},
		{"zero qps", func(o *Options) { o.QPS = 0 }, "QPS 0: want > 0"},
		{"negative timeout", func(o *Options) { o.Timeout = -1 }, "Timeout -1ns: want ≥ 0"},
		{"sub-millisecond timeout", func(o *Options) { o.Timeout = 10 }, "want at least 1ms"},
	} {
		o := good
		tc.edit(&o)
		_, err := Start(context.Background(), o)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "zkclient options: ") {
			t.Errorf("%s: err %v, want %q", tc.name, err, tc.want)
		}
	}
}

func TestJavacIsTakenBesideJava(t *testing.T) {
	t.Setenv("JAVA_HOME", "")
	for bin, want := range map[string]string{
		"":                          "javac",
		"java":                      "javac",
		"/usr/lib/jvm/jdk/bin/java": "/usr/lib/jvm/jdk/bin/javac",
	} {
		if got := javacBin(bin); got != want {
			t.Errorf("javacBin(%q) = %q, want %q", bin, got, want)
		}
	}
}

func TestStdoutLinesHandsOverTheReadyLineOnceAndLogsTheRest(t *testing.T) {
	ready := make(chan []string, 1)
	var log strings.Builder
	w := &stdoutLines{ready: ready, rest: &log}
	for _, chunk := range []string{"warming up\n{\"ready\":tr", "ue,\"brokers\":[\"127.0.0.1:24002\"]}\n", "{\"ready\":true,\"brokers\":[]}\npartial"} {
		if n, err := w.Write([]byte(chunk)); err != nil || n != len(chunk) {
			t.Fatalf("Write(%q) = %d, %v", chunk, n, err)
		}
	}
	select {
	case b := <-ready:
		if len(b) != 1 || b[0] != "127.0.0.1:24002" {
			t.Fatalf("ready brokers %v", b)
		}
	default:
		t.Fatal("no ready line handed over")
	}
	if want := "warming up\n{\"ready\":true,\"brokers\":[]}\n"; log.String() != want {
		t.Fatalf("log %q, want %q (a second ready line is only logged; a partial line waits)", log.String(), want)
	}
}
