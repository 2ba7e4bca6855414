package main

import (
	"os"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/internal/config"
	"github.com/warmup-sidecar/warmup-sidecar/internal/cpuboost"
	"github.com/warmup-sidecar/warmup-sidecar/internal/report"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/kubeapi"
)

// boostSlowRetry, set at link time only (-ldflags "-X main.boostSlowRetry=300ms"), replaces the
// give-back's slow retry pace (minutes) so that the binary's tests see a retry within a second.
// No user setting reaches it: the pace is the runner's to choose (cpuboost.Settings.SlowRetry).
var boostSlowRetry string

// boostRunner is the CPU boost's give-back for serve (nil when the boost is off, or when the
// Kubernetes API cannot be reached at all: then the status says why, and the sidecar goes on).
func (s *sidecar) boostRunner(cfg config.Config) *cpuboost.Runner {
	if !cfg.CPUBoostEnabled {
		return nil
	}
	target := kubeapi.CPU{Request: cfg.CPUBoostTargetRequest, Limit: cfg.CPUBoostTargetLimit}
	client, err := kubeapi.InCluster(os.Getenv, cfg.KubeServiceAccountDir, cfg.PodNamespace, cfg.PodName, "warmup-sidecar/"+version)
	if err != nil {
		now := time.Now()
		s.boost.Set(report.CPUBoostStatus{
			State: report.CPUBoostFailed, Since: now, Container: cfg.CPUBoostContainer,
			Target: report.CPUBoostCPU{Request: target.Request, Limit: target.Limit},
			Reason: "cannot reach the Kubernetes API: " + err.Error() + "; the broker container keeps its boosted CPU",
		})
		return nil
	}
	// The supervisor's JIT source: one scraper of the broker JVM's metrics for the run and the boost.
	var src cpuboost.CompileTimeSource
	if s.sup.Compile != nil {
		src = s.sup.Compile
	}
	slow, _ := time.ParseDuration(boostSlowRetry) // unset (every build but the tests'): the default
	return &cpuboost.Runner{
		Settings: cpuboost.Settings{
			Container: cfg.CPUBoostContainer, Target: target,
			MaxDuration: cfg.CPUBoostMaxDuration, Settle: cfg.CPUBoostSettle,
			NoJITNote: "WARMUP_JVM_METRICS_URL is empty", SlowRetry: slow,
		},
		Pods: client, Compile: src, Gate: s.gate, Report: s.boost,
	}
}

// boostOff publishes the boost's state when this process does not give it back.
func (s *sidecar) boostOff(reason string) {
	s.boost.Set(report.CPUBoostStatus{State: report.CPUBoostOff, Since: time.Now(), Reason: reason})
}
