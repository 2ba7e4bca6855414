package cluster

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/warmup-sidecar/warmup-sidecar/e2e/proc"
)

// AdminMain is the class the image's bin/pinot-admin.sh runs, every role's entry point.
const AdminMain = "org.apache.pinot.tools.admin.PinotAdministrator"

// javaOpens lets Pinot's off-heap buffers and reflection work on Java 17+, as Pinot's own start
// scripts do.
var javaOpens = []string{
	"--add-opens=java.base/java.nio=ALL-UNNAMED",
	"--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
	"--add-opens=java.base/java.lang=ALL-UNNAMED",
	"--add-opens=java.base/java.util=ALL-UNNAMED",
	"--add-exports=java.base/jdk.internal.ref=ALL-UNNAMED",
}

// roleJVMOpts are moderate heaps for a 2-core, loopback cluster. Serial GC for the non-broker roles
// keeps background GC threads off the two cores the broker benchmark measures; the broker keeps the
// JVM's default collector unless BrokerJVMOpts say otherwise.
func roleJVMOpts(role string) []string {
	switch {
	case role == "zookeeper":
		return []string{"-Xms64m", "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
			"-Dzookeeper.admin.enableServer=false"} // the admin server would bind :8080 in every cluster
	case strings.HasPrefix(role, "broker"):
		return []string{"-Xms256m", "-Xmx1g"}
	default:
		return []string{"-Xms256m", "-Xmx1g", "-XX:+UseSerialGC"}
	}
}

func (c *Cluster) javaBin() string { return JavaBin(c.opts.JavaBin) }

// JavaBin is the java executable: bin if set, else $JAVA_HOME/bin/java if JAVA_HOME is set, else
// "java" (found on PATH).
func JavaBin(bin string) string {
	if bin != "" {
		return bin
	}
	if home := os.Getenv("JAVA_HOME"); home != "" {
		return filepath.Join(home, "bin", "java")
	}
	return "java"
}

// jvmArgv builds `java <opts> -cp lib/*[:extraCP] PinotAdministrator <args>`. Each role gets its
// own tmpdir because PinotAdministrator drops .pid files into java.io.tmpdir.
// java is the executable; empty: the cluster's (javaBin).
func (c *Cluster) jvmArgv(role, java string, extraOpts, extraCP []string, args ...string) ([]string, error) {
	tmp := filepath.Join(c.work, "tmp", role)
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		return nil, fmt.Errorf("%s tmpdir: %w", role, err)
	}
	if java == "" {
		java = c.javaBin()
	}
	opts := roleJVMOpts(role)
	opts = append(opts, javaOpens...)
	opts = append(opts,
		"-Djava.io.tmpdir="+tmp,
		"-Dlog4j2.configurationFile="+filepath.Join(c.work, "log4j2.xml"),
	)
	opts = append(opts, c.opts.JVMOpts...)
	opts = append(opts, extraOpts...)
	return PinotArgv(java, opts, c.lib, extraCP, args...), nil
}

// PinotArgv is `java <opts> -cp <lib>/*[:extraCP] PinotAdministrator <args>`: the command the
// image's bin/pinot-admin.sh execs, on the jars of lib (InstallPinot).
func PinotArgv(java string, opts []string, lib string, extraCP []string, args ...string) []string {
	argv := append([]string{java}, opts...)
	cp := append([]string{filepath.Join(lib, "*")}, extraCP...)
	argv = append(argv, "-cp", strings.Join(cp, string(os.PathListSeparator)), AdminMain)
	return append(argv, args...)
}

// startRole starts one JVM with its working dir and log under WorkDir.
func (c *Cluster) startRole(role string, extraOpts []string, args ...string) (*proc.Proc, error) {
	return c.startRoleJVM(role, "", 0, extraOpts, nil, args...)
}

// startRoleJVM is startRole on a given java executable (empty: the cluster's) at a nice value,
// with extraCP after lib/* on the class path: nice(1) execs the JVM, so its pid is the JVM's and
// every JVM thread inherits the value.
func (c *Cluster) startRoleJVM(role, java string, nice int, extraOpts, extraCP []string, args ...string) (*proc.Proc, error) {
	argv, err := c.jvmArgv(role, java, extraOpts, extraCP, args...)
	if err != nil {
		return nil, err
	}
	if argv, err = niceArgv(nice, argv); err != nil {
		return nil, fmt.Errorf("start %s: %w", role, err)
	}
	dir := filepath.Join(c.work, role)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("start %s: %w", role, err)
	}
	p, err := proc.Start(proc.Spec{Name: role, Argv: argv, Dir: dir, Log: filepath.Join(c.work, "logs", role+".log"), Echo: c.opts.ProcessOutput})
	if err != nil {
		return nil, err
	}
	c.log.Info("pinot role started", "role", role, "pid", p.PID())
	return p, nil
}

// Log4j2Config sends everything at INFO to stdout (our per-role log file), flushed at once so a
// health-check timeout can quote the latest lines. Pinot's bundled config buffers into ./logs and
// prints only errors.
const Log4j2Config = `<?xml version="1.0" encoding="UTF-8"?>
<Configuration>
  <Appenders>
    <Console name="console" target="SYSTEM_OUT">
      <PatternLayout pattern="%d{HH:mm:ss.SSS} %p [%c{1}] [%t] %m%n"/>
    </Console>
  </Appenders>
  <Loggers>
    <Root level="info"><AppenderRef ref="console"/></Root>
    <Logger name="org.apache.helix" level="warn" additivity="false"><AppenderRef ref="console"/></Logger>
    <Logger name="org.apache.zookeeper" level="warn" additivity="false"><AppenderRef ref="console"/></Logger>
    <Logger name="org.reflections" level="error" additivity="false"><AppenderRef ref="console"/></Logger>
  </Loggers>
</Configuration>
`

func writeLog4j(work string) error {
	if err := os.WriteFile(filepath.Join(work, "log4j2.xml"), []byte(Log4j2Config), 0o644); err != nil {
		return fmt.Errorf("write log4j2.xml: %w", err)
	}
	return nil
}

// niceArgv runs argv under nice(1) at n (0: as it is).
func niceArgv(n int, argv []string) ([]string, error) {
	switch {
	case n < 0 || n > 19:
		return nil, fmt.Errorf("nice %d: want 0–19", n)
	case n == 0:
		return argv, nil
	}
	return append([]string{"nice", "-n", strconv.Itoa(n)}, argv...), nil
}
