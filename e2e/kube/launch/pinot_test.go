package launch

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/warmup-sidecar/warmup-sidecar/e2e/cluster"
	"github.com/warmup-sidecar/warmup-sidecar/e2e/kube/podnet"
)

// fakeLib is a lib dir with one jar the image ships as a plugin and one it does not.
func fakeLib(t *testing.T) string {
	t.Helper()
	lib := t.TempDir()
	for _, jar := range []string{"pinot-yammer-1.5.1.jar", "pinot-broker-1.5.1.jar"} {
		if err := os.WriteFile(filepath.Join(lib, jar), []byte(jar), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return lib
}

func newTestPinot(t *testing.T) *Pinot {
	t.Helper()
	p, err := NewPinot(fakeLib(t), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	p.Java = "/jdk/bin/java"
	return p
}

// hostPort is the pod's host port for port, failing the test on an error.
func hostPort(t *testing.T, net PortMap, port int32) string {
	t.Helper()
	hp, err := net.HostPort(port)
	if err != nil {
		t.Fatal(err)
	}
	return strconv.Itoa(hp)
}

// jvmOpts are the options of a PinotArgv command line: between the executable and -cp.
func jvmOpts(t *testing.T, argv []string) []string {
	t.Helper()
	i := slices.Index(argv, "-cp")
	if i < 1 {
		t.Fatalf("argv %q: no -cp", argv)
	}
	return argv[1:i]
}

// The official chart's broker container, as rendered: every operator option is kept, each path
// lands where the container would find it, the script's options are there, and the config file
// is a translated copy that gives the pod a unique, stable instance id.
func TestPinotRunsTheChartsBroker(t *testing.T) {
	p := newTestPinot(t)
	pod, _ := podnet.New(24000, 10).Pod("pinot", "pinot-broker-0")
	fx := newPod(t, parseManifests(t, chartFixture(t)), "pinot-broker", "pinot/pinot-broker-0", t.TempDir(), pod)
	c := fx.container("broker")

	proc, err := p.Process(c)
	if err != nil {
		t.Fatal(err)
	}
	if proc.Argv[0] != "/jdk/bin/java" || proc.Dir != filepath.Join(c.Dir, "opt", "pinot") {
		t.Errorf("java %q in %q, want /jdk/bin/java in Dir/opt/pinot", proc.Argv[0], proc.Dir)
	}
	opts := jvmOpts(t, proc.Argv)
	home := filepath.Join(p.Image, "opt", "pinot")
	for _, want := range []string{
		// the operator's, as the chart sets them
		"-XX:ActiveProcessorCount=2", "-Xms256M", "-Xmx1G", "-XX:+UseG1GC", "-XX:MaxGCPauseMillis=200",
		"-Djute.maxbuffer=4000000",
		// the operator's paths, placed
		"-Xlog:gc*:file=" + filepath.Join(c.Dir, "opt", "pinot", "gc-pinot-broker.log"),
		"-Dlog4j2.configurationFile=" + filepath.Join(home, "etc", "conf", "pinot-broker-log4j2.xml"),
		"-Dplugins.dir=" + filepath.Join(home, "plugins"),
		// the script's and the launcher's
		"--add-opens=java.base/java.nio=ALL-UNNAMED", "--add-opens=java.base/jdk.internal.misc=ALL-UNNAMED",
		"-Dio.netty.tryReflectionSetAccessible=true",
		"-Djava.io.tmpdir=" + filepath.Join(c.Dir, "tmp"),
		"-Dapp.home=" + home,
	} {
		if !slices.Contains(opts, want) {
			t.Errorf("JVM options lack %s:\n%q", want, opts)
		}
	}
	if i, j := slices.Index(opts, "-Djava.io.tmpdir="+filepath.Join(c.Dir, "tmp")), slices.Index(opts, "-XX:ActiveProcessorCount=2"); i > j {
		t.Errorf("the private tmpdir comes after JAVA_OPTS (%d > %d): an operator's own could not win", i, j)
	}
	if b, err := os.ReadFile(filepath.Join(home, "etc", "conf", "pinot-broker-log4j2.xml")); err != nil || string(b) != cluster.Log4j2Config {
		t.Errorf("the image's broker log4j2 config: %v, want the harness's stdout config", err)
	}
	if _, err := os.Stat(filepath.Join(c.Dir, "opt", "pinot")); err != nil {
		t.Errorf("the GC log's dir: %v", err)
	}

	plugin := filepath.Join(home, "plugins", "pinot-metrics", "pinot-yammer", "pinot-yammer-1.5.1.jar")
	tail := proc.Argv[len(opts)+1:]
	conf := filepath.Join(c.Dir, "launcher", "pinot-broker.conf")
	want := []string{"-cp", filepath.Join(p.Lib, "*") + ":" + plugin, cluster.AdminMain,
		"StartBroker", "-clusterName", "pinot-quickstart", "-zkAddress", "my-zookeeper:2181/my-pinot", "-configFileName", conf}
	if !slices.Equal(tail, want) {
		t.Errorf("class path and args:\n got %q\nwant %q", tail, want)
	}

	b, err := os.ReadFile(conf)
	if err != nil {
		t.Fatal(err)
	}
	wantConf := "pinot.broker.client.queryPort=" + hostPort(t, pod, 8099) + "\n" +
		"pinot.broker.routing.table.builder.class=random\n" +
		"pinot.set.instance.id.to.hostname=true\n" +
		"pinot.query.server.port=" + hostPort(t, pod, 7321) + "\n" +
		"pinot.query.runner.port=" + hostPort(t, pod, 7732) + "\n" +
		"pinot.broker.hostname=127.0.0.1\n"
	if string(b) != wantConf {
		t.Errorf("translated config:\n%s\nwant:\n%s", b, wantConf)
	}
	if v, _ := envOf(proc.Env, "LOG4J_CONSOLE_LEVEL"); v != "info" {
		t.Errorf("env %q: want the spec's LOG4J_CONSOLE_LEVEL=info", proc.Env)
	}
}

// The broker warmup-inject renders (C1 only, an AOT cache and its log on volumes, the loopback
// listener): the added options are kept, the cache and log paths are the volumes' host paths, and
// the listener's port is the pod's.
func TestPinotRunsTheInjectedBroker(t *testing.T) {
	p := newTestPinot(t)
	pod, _ := podnet.New(24000, 10).Pod("pinot", "pinot-broker-0")
	m := parseManifests(t, injected(t, `
loopbackListener: {enabled: true}
brokerJvm:
  c1Only: true
  aotCache: {enabled: true, mode: use, volume: {persistentVolumeClaim: {claimName: aot}}}
`))
	fx := newPod(t, m, "pinot-broker", "pinot/pinot-broker-0", t.TempDir(), pod)
	c := fx.container("broker")
	proc, err := p.Process(c)
	if err != nil {
		t.Fatal(err)
	}
	opts := jvmOpts(t, proc.Argv)
	for _, want := range []string{
		"-XX:TieredStopAtLevel=1",
		"-XX:AOTCache=" + filepath.Join(fx.dir, "volumes", "warmup-aot-cache", "apachepinot-pinot-latest.aot"),
		"-Xlog:aot=info,cds=info:file=" + filepath.Join(fx.dir, "volumes", "warmup-aot-log", "aot.log"),
	} {
		if !slices.Contains(opts, want) {
			t.Errorf("JVM options lack %s:\n%q", want, opts)
		}
	}
	b, err := os.ReadFile(filepath.Join(c.Dir, "launcher", "pinot-broker.conf"))
	if err != nil {
		t.Fatal(err)
	}
	if line := "pinot.broker.client.access.protocols.warmup.port=" + hostPort(t, pod, 8098) + "\n"; !strings.Contains(string(b), line) {
		t.Errorf("translated config lacks %q:\n%s", line, b)
	}
}

// Restarts and pods: the same pod name gets the same command (an AOT cache's class path and the
// instance id stay), another pod another query port.
func TestPinotIsStablePerPod(t *testing.T) {
	p := newTestPinot(t)
	network := podnet.New(24000, 10)
	m := parseManifests(t, chartFixture(t))
	argv := func(name, dir string) []string {
		pod, _ := network.Pod("pinot", name)
		c := newPod(t, m, "pinot-broker", "pinot/"+name, dir, pod).container("broker")
		proc, err := p.Process(c)
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(c.Dir, "launcher", "pinot-broker.conf"))
		if err != nil {
			t.Fatal(err)
		}
		return append(proc.Argv, string(b))
	}
	dir := t.TempDir()
	first, again, other := argv("pinot-broker-0", dir), argv("pinot-broker-0", dir), argv("pinot-broker-1", t.TempDir())
	if !slices.Equal(first, again) {
		t.Errorf("the same pod twice:\n%q\n%q", first, again)
	}
	if first[len(first)-1] == other[len(other)-1] {
		t.Errorf("two pods share a config:\n%s", first[len(first)-1])
	}
	cp := func(a []string) string { return a[slices.Index(a, "-cp")+1] }
	if cp(first) != cp(other) {
		t.Errorf("class path differs between pods: %s, %s", cp(first), cp(other))
	}
}

// JAVA_OPTS as a container sees it: the last entry wins; without one, the image's own.
func TestPinotJavaOptsAsTheContainerSeesThem(t *testing.T) {
	p := newTestPinot(t)
	pod, _ := podnet.New(24000, 10).Pod("pinot", "b")
	fx := newPod(t, parseManifests(t, chartFixture(t)), "pinot-broker", "pinot/b", t.TempDir(), pod)
	for _, tc := range []struct {
		name string
		env  []string
		want []string
		not  []string
	}{
		{"last wins", []string{"JAVA_OPTS=-Xmx1G", "JAVA_OPTS=-Xmx2G -Dx=/opt/pinot/y -Dz=file:/dev/./urandom"},
			[]string{"-Xmx2G", "-Dz=file:/dev/./urandom"}, []string{"-Xmx1G"}},
		{"image default", nil, []string{"-Xms4G", "-Xmx4G", "-Dpinot.admin.system.exit=false"}, nil},
		{"pod-local address", []string{"JAVA_OPTS=-Dx=http://127.0.0.1:8008/m"},
			[]string{"-Dx=http://127.0.0.1:" + hostPort(t, pod, 8008) + "/m"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := fx.container("broker")
			c.Env = tc.env
			proc, err := p.Process(c)
			if err != nil {
				t.Fatal(err)
			}
			opts := jvmOpts(t, proc.Argv)
			for _, w := range tc.want {
				if !slices.Contains(opts, w) {
					t.Errorf("lacks %s: %q", w, opts)
				}
			}
			for _, n := range tc.not {
				if slices.Contains(opts, n) {
					t.Errorf("has %s: %q", n, opts)
				}
			}
			if tc.name == "last wins" && !slices.Contains(opts, "-Dx="+filepath.Join(c.Dir, "opt", "pinot", "y")) {
				t.Errorf("/opt/pinot/y (not in the image) is not in the container's own layer: %q", opts)
			}
		})
	}
}

// What the launcher cannot run says what and why.
func TestPinotRefuses(t *testing.T) {
	p := newTestPinot(t)
	pod, _ := podnet.New(24000, 10).Pod("pinot", "b")
	fx := newPod(t, parseManifests(t, chartFixture(t)), "pinot-broker", "pinot/b", t.TempDir(), pod)
	for _, tc := range []struct {
		name   string
		change func(c *Container)
		want   string
	}{
		{"a path nowhere", func(c *Container) { setEnv(c, "JAVA_OPTS", "-Xmx1G -XX:HeapDumpPath=/data/dumps") }, "/data/dumps is in none of the volume mounts (/var/pinot/broker/config)"},
		{"another role", func(c *Container) { c.Args = []string{"StartController", "-zkAddress", "zk:2181"} }, "runs StartBroker only"},
		{"the image's CMD", func(c *Container) { c.Args = nil }, `args "-help"`},
		{"another command", func(c *Container) { c.Command = []string{"/bin/sh", "-c", "x"} }, `command "/bin/sh -c x"`},
		{"no config file", func(c *Container) { c.Args = []string{"StartBroker", "-zkAddress", "zk:2181"} }, "StartBroker without -configFileName"},
		{"a config file nowhere", func(c *Container) { setArg(t, c, "-configFileName", "/etc/pinot/broker.conf") }, "/etc/pinot/broker.conf is in none"},
		{"a plugins dir of its own", func(c *Container) { setEnv(c, "PLUGINS_DIR", "/plugins") }, "env PLUGINS_DIR is set"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := fx.container("broker")
			tc.change(&c)
			_, err := p.Process(c)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "broker") {
				t.Errorf("error %v, want one naming the container and %q", err, tc.want)
			}
		})
	}
}
