package coldstart

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// JavaExecutable resolves a JDK given by an operator or a test: a JDK home (its bin/java) or the
// java executable itself.
func JavaExecutable(path string) (string, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return "", fmt.Errorf("java %s: %w", path, err)
	}
	if fi.IsDir() {
		return JavaExecutable(filepath.Join(path, "bin", "java"))
	}
	if !fi.Mode().IsRegular() || fi.Mode().Perm()&0o111 == 0 {
		return "", fmt.Errorf("java %s: want an executable file or a JDK home holding bin/java", path)
	}
	return path, nil
}

// ReadJDK runs `java -version` and keeps its first line (the version, whatever the vendor).
func ReadJDK(ctx context.Context, bin string) (JDK, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, bin, "-version").CombinedOutput()
	if err != nil {
		return JDK{Java: bin}, fmt.Errorf("%s -version: %w: %.300s", bin, err, out)
	}
	line, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	return JDK{Java: bin, Version: strings.TrimSpace(line)}, nil
}

// Major is the JDK's feature release (25 for "25.0.3", 17 for "17.0.15"), 0 when the version
// line names none.
func (j JDK) Major() int {
	major, _, _ := strings.Cut(JavaVersion(j.Version), ".")
	n, _ := strconv.Atoi(major)
	return n
}

// BrokerJavaEnv names the JDK the e2e tests give a broker that needs a newer JDK than the
// machine's (a JDK home or its bin/java).
const BrokerJavaEnv = "WARMUP_E2E_BROKER_JAVA"

// FindJDK is the java executable of a JDK of at least minMajor for a broker: BrokerJavaEnv's if
// set (an error if it is not one), else the first found in /usr/lib/jvm; "" when there is none.
func FindJDK(ctx context.Context, minMajor int) (string, error) {
	if env := os.Getenv(BrokerJavaEnv); env != "" {
		java, err := JavaExecutable(env)
		if err != nil {
			return "", fmt.Errorf("%s: %w", BrokerJavaEnv, err)
		}
		if jdk, err := ReadJDK(ctx, java); err != nil || jdk.Major() < minMajor {
			return "", fmt.Errorf("%s=%s: want a JDK %d+, got %q (%v)", BrokerJavaEnv, env, minMajor, jdk.Version, err)
		}
		return java, nil
	}
	found, _ := filepath.Glob("/usr/lib/jvm/*/bin/java")
	for _, java := range found {
		if jdk, err := ReadJDK(ctx, java); err == nil && jdk.Major() >= minMajor {
			return java, nil
		}
	}
	return "", nil
}
