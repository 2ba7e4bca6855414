package launch

import (
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/warmup-sidecar/warmup-sidecar/e2e/cluster"
)

// PinotImage is the official Pinot image's repository; the launcher runs any tag of it on the
// harness's Pinot install (1.5.1).
const PinotImage = "apachepinot/pinot"

// pinotEntry is the image's ENTRYPOINT ["./bin/pinot-admin.sh"] (WORKDIR /opt/pinot), CMD
// ["-help"] (docker/images/pinot/Dockerfile).
var pinotEntry = imageEntry{
	entrypoint: []string{"./bin/pinot-admin.sh"},
	cmd:        []string{"-help"},
	names:      []string{"./bin/pinot-admin.sh", "bin/pinot-admin.sh", pinotHome + "/bin/pinot-admin.sh"},
}

// imageJavaOpts is the image's own ENV JAVA_OPTS: what a container whose spec sets none runs with.
const imageJavaOpts = "-Xms4G -Xmx4G -Dpinot.admin.system.exit=false"

// scriptOpts are what bin/pinot-admin.sh puts before JAVA_OPTS on a JDK newer than 11
// (appAssemblerScriptTemplate in pinot-tools-1.5.1.jar): module access for Pinot's off-heap
// buffers, reflection and Netty.
var scriptOpts = []string{
	"--add-opens=java.base/java.nio=ALL-UNNAMED",
	"--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
	"--add-opens=java.base/java.lang=ALL-UNNAMED",
	"--add-opens=java.base/java.util=ALL-UNNAMED",
	"--add-opens=java.base/java.lang.reflect=ALL-UNNAMED",
	"--add-opens=java.base/jdk.internal.misc=ALL-UNNAMED",
	"-Dio.netty.tryReflectionSetAccessible=true",
	"-Dio.grpc.netty.shaded.io.netty.tryReflectionSetAccessible=true",
}

// scriptEnv are the variables bin/pinot-admin.sh builds another class path or java command from;
// the launcher knows only the image's own plugins dir and its Java.
var scriptEnv = []string{"PLUGINS_DIR", "PLUGINS_INCLUDE", "PLUGINS_CLASSPATH", "CLASSPATH_PREFIX", "JAVACMD"}

// jvmEnv are the variables the JVM itself reads options from: translated as JAVA_OPTS is.
var jvmEnv = []string{"JAVA_TOOL_OPTIONS", "JDK_JAVA_OPTIONS"}

// brokerConfigOpts are StartBroker's names for its config file (StartBrokerCommand, 1.5.1).
var brokerConfigOpts = []string{"-configFileName", "-config", "-configFile", "-brokerConfig", "-brokerConf"}

// Pinot is the launcher of PinotImage: the java command bin/pinot-admin.sh would exec, with the
// container's JAVA_OPTS translated to the host (every option kept) and StartBroker's config file
// translated to the pod network. Make it with NewPinot.
type Pinot struct {
	// Lib holds the Pinot jars (cluster.InstallPinot): the image's lib/.
	Lib string
	// Image is the root of the image's read-only files on the host (Image/opt/pinot/plugins/...,
	// Image/opt/pinot/etc/conf/...): one per launcher, so the class path is the same in every
	// container and every restart, as in the image (an AOT cache records it).
	Image string
	// Java is the java executable, e.g. a JDK 25's bin/java for an AOT arm. Empty: cluster.JavaBin's
	// choice ($JAVA_HOME/bin/java, else java on PATH).
	Java string

	plugins []cluster.ImagePlugin
}

// NewPinot lays the image's files out under image (the plugin jars of lib in the image's plugin
// layout, and etc/conf/pinot-<role>-log4j2.xml logging to stdout as the harness's roles do) and
// returns the launcher. A second call on the same dir keeps what is there.
func NewPinot(lib, image string) (*Pinot, error) {
	if image == "" {
		return nil, fmt.Errorf("pinot launcher: image dir: want a directory of the test's own (empty would lay the image out in the working directory)")
	}
	var err error
	if lib, err = filepath.Abs(lib); err != nil {
		return nil, fmt.Errorf("pinot launcher: lib dir: %w", err)
	}
	if image, err = filepath.Abs(image); err != nil {
		return nil, fmt.Errorf("pinot launcher: image dir: %w", err)
	}
	home := filepath.Join(image, filepath.FromSlash(pinotHome))
	plugins, err := cluster.LayImagePlugins(lib, filepath.Join(home, "plugins"))
	if err != nil {
		return nil, fmt.Errorf("pinot launcher: %w", err)
	}
	conf := filepath.Join(home, "etc", "conf")
	if err := os.MkdirAll(conf, 0o755); err != nil {
		return nil, fmt.Errorf("pinot launcher: %w", err)
	}
	for _, role := range []string{"broker", "controller", "server", "minion"} {
		f := filepath.Join(conf, "pinot-"+role+"-log4j2.xml")
		if err := os.WriteFile(f, []byte(cluster.Log4j2Config), 0o644); err != nil {
			return nil, fmt.Errorf("pinot launcher: %w", err)
		}
	}
	return &Pinot{Lib: lib, Image: image, plugins: plugins}, nil
}

// Process is the broker's java command. The JVM options are, in bin/pinot-admin.sh's order: the
// script's own (scriptOpts), a private -Djava.io.tmpdir (the container's /tmp; an operator's own
// comes later and wins), JAVA_OPTS (the container's last, else the image's) option by option with
// its paths placed (place) and pod-local addresses translated, then the script's -Dplugins.dir
// and -Dapp.* (app.pid aside: the script's shell pid is unknown before the start). The class path
// is lib/* and every image plugin jar. The args are the container's, the config file pointed at
// its translated copy (Dir/launcher/). Any command but StartBroker is an error.
func (p *Pinot) Process(c Container) (Process, error) {
	fail := func(err error) (Process, error) {
		return Process{}, fmt.Errorf("launch container %s of pod %s (%s): %w", c.Name, c.Pod, PinotImage, err)
	}
	if c.Net == nil {
		return fail(errors.New("no pod network"))
	}
	args, err := pinotEntry.command(c)
	if err != nil {
		return Process{}, err
	}
	if len(args) == 0 || !strings.EqualFold(args[0], "StartBroker") {
		return fail(fmt.Errorf("args %q: the test bed runs StartBroker only from the image (ZooKeeper, the controller and the servers come from e2e/cluster)", strings.Join(args, " ")))
	}
	for _, name := range scriptEnv {
		if _, ok := c.Getenv(name); ok {
			return fail(fmt.Errorf("env %s is set: the launcher runs the image's own plugins dir and java only", name))
		}
	}
	work, tmp := filepath.Join(c.Dir, "opt", "pinot"), filepath.Join(c.Dir, "tmp")
	for _, d := range []string{work, tmp} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return fail(err)
		}
	}
	javaOpts, ok := c.Getenv("JAVA_OPTS")
	if !ok {
		javaOpts = imageJavaOpts
	}
	opts := append(slices.Clone(scriptOpts), "-Djava.io.tmpdir="+tmp)
	translated, err := p.translateOpts(c, javaOpts)
	if err != nil {
		return fail(fmt.Errorf("JAVA_OPTS: %w", err))
	}
	opts = append(opts, translated...)
	home := filepath.Join(p.Image, filepath.FromSlash(pinotHome))
	pluginOpts, classPath := cluster.ImagePluginArgs(filepath.Join(home, "plugins"), p.plugins)
	opts = append(opts, pluginOpts...)
	opts = append(opts, "-Dapp.name=pinot-admin", "-Dapp.repo="+p.Lib, "-Dapp.home="+home, "-Dbasedir="+home)
	if args, err = p.brokerArgs(c, args); err != nil {
		return fail(err)
	}
	env, err := p.env(c)
	if err != nil {
		return fail(err)
	}
	return Process{Argv: cluster.PinotArgv(cluster.JavaBin(p.Java), opts, p.Lib, classPath, args...), Env: env, Dir: work}, nil
}

// translateOpts splits JVM options as the script's unquoted $JAVA_OPTS is split, and translates
// each (translateOpt).
func (p *Pinot) translateOpts(c Container, opts string) ([]string, error) {
	var out []string
	for _, o := range strings.Fields(opts) {
		t, err := p.translateOpt(c, o)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", o, err)
		}
		out = append(out, t)
	}
	return out, nil
}

// env is the container's env for the JVM: the image's LANG (its base, amazoncorretto, sets
// C.UTF-8: the JVM's default charset on JDK 17), then the spec's, with the options the JVM reads
// from its environment translated.
func (p *Pinot) env(c Container) ([]string, error) {
	env := []string{"LANG=C.UTF-8"}
	for _, kv := range c.Env {
		k, v, _ := strings.Cut(kv, "=")
		if slices.Contains(jvmEnv, k) {
			t, err := p.translateOpts(c, v)
			if err != nil {
				return nil, fmt.Errorf("env %s: %w", k, err)
			}
			kv = k + "=" + strings.Join(t, " ")
		}
		env = append(env, kv)
	}
	return env, nil
}

// brokerArgs points StartBroker's config file option (-configFileName or an alias, "-opt value" or
// "-opt=value") at a translated copy. A broker without a config file is an error: its ports and
// host would be Pinot's defaults, the same in every pod.
func (p *Pinot) brokerArgs(c Container, args []string) ([]string, error) {
	out := slices.Clone(args)
	found := false
	for i := 1; i < len(out); i++ {
		name, value, inline := strings.Cut(out[i], "=")
		if !slices.Contains(brokerConfigOpts, name) {
			continue
		}
		if !inline {
			if i+1 >= len(out) {
				return nil, fmt.Errorf("args: %s has no value", name)
			}
			value = out[i+1]
		}
		conf, err := p.brokerConf(c, value)
		if err != nil {
			return nil, fmt.Errorf("args: %s %s: %w", name, value, err)
		}
		if inline {
			out[i] = name + "=" + conf
		} else {
			out[i+1] = conf
			i++
		}
		found = true
	}
	if !found {
		return nil, fmt.Errorf("args %q: StartBroker without %s: the launcher translates the broker's ports and host in its config file", strings.Join(args, " "), brokerConfigOpts[0])
	}
	return out, nil
}

// brokerConf copies the config file at ctr (a container path, usually a ConfigMap mount) into
// Dir/launcher/, translated (translateBrokerConf), and returns the copy's path.
func (p *Pinot) brokerConf(c Container, ctr string) (string, error) {
	src, err := p.place(c, ctr)
	if err != nil {
		return "", err
	}
	b, err := os.ReadFile(src)
	if err != nil {
		return "", fmt.Errorf("read config: %w", err)
	}
	conf, err := translateBrokerConf(string(b), c.Net)
	if err != nil {
		return "", fmt.Errorf("config %s: %w", ctr, err)
	}
	dst := filepath.Join(c.Dir, "launcher", path.Base(ctr))
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return "", err
	}
	if err := os.WriteFile(dst, []byte(conf), 0o644); err != nil {
		return "", fmt.Errorf("write translated config: %w", err)
	}
	return dst, nil
}
