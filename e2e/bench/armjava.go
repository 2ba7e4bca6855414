package bench

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/warmup-sidecar/warmup-sidecar/e2e/coldstart"
)

// checkArmJava: every arm given a JDK is an arm of the study, and its java is executable.
func checkArmJava(java map[string]string, arms []string) error {
	for a, p := range java {
		if !slices.Contains(arms, a) {
			return fmt.Errorf("broker java for %s: want an arm of this study (%s)", a, strings.Join(arms, ", "))
		}
		if _, err := coldstart.JavaExecutable(p); err != nil {
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
	bin, err := coldstart.JavaExecutable(p)
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

// JDKOf is coldstart.ReadJDK for a study's record: a JDK that does not answer is recorded as
// unknown, with why.
func JDKOf(ctx context.Context, bin string) coldstart.JDK {
	jdk, err := coldstart.ReadJDK(ctx, bin)
	if err != nil {
		return coldstart.JDK{Java: bin, Version: "unknown (" + err.Error() + ")"}
	}
	return jdk
}
