package bench

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/e2e/coldstart"
)

// JavaExecutable resolves a --arm-broker-java value: a JDK home (its bin/java) or the java
// executable itself.
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

// checkArmJava: every arm given a JDK is an arm of the study, and its java is executable.
func checkArmJava(java map[string]string, arms []string) error {
	for a, p := range java {
		if !slices.Contains(arms, a) {
			return fmt.Errorf("broker java for %s: want an arm of this study (%s)", a, strings.Join(arms, ", "))
		}
		if _, err := JavaExecutable(p); err != nil {
			return fmt.Errorf("broker java for %s: %w", a, err)
		}
	}
	return nil
}

// brokerJava is the java executable arm's brokers run on; empty: the cluster's.
func (e *Env) brokerJava(arm string) string {
	p := e.cfg.ArmBrokerJava[arm]
	if p == "" {
		return ""
	}
	bin, err := JavaExecutable(p)
	if err != nil { // checked in Config.check; the file went away since
		e.cfg.Logger.Warn("arm's broker java is gone; the cluster's java runs it", "arm", arm, "error", err)
		return ""
	}
	return bin
}

// armJDKs records the JDK of every arm that has its own.
func (e *Env) armJDKs(ctx context.Context) map[string]coldstart.JDK {
	out := map[string]coldstart.JDK{}
	for a := range e.cfg.ArmBrokerJava {
		if bin := e.brokerJava(a); bin != "" {
			out[a] = JDKOf(ctx, bin)
		}
	}
	return out
}

// JDKOf runs `java -version` and keeps its first line (the version, whatever the vendor).
func JDKOf(ctx context.Context, bin string) coldstart.JDK {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, bin, "-version").CombinedOutput()
	if err != nil {
		return coldstart.JDK{Java: bin, Version: "unknown (" + err.Error() + ")"}
	}
	line, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	return coldstart.JDK{Java: bin, Version: strings.TrimSpace(line)}
}
