package rollout

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/warmup-sidecar/warmup-sidecar/pkg/jvmmetrics"
)

// readJIT reads the broker JVM's cumulative JIT compile time from its JMX exporter agent every
// second until ctx ends (the pod's deletion), each reading a KindJIT event. The first readings
// fail until the JVM has loaded the agent; failures are not recorded.
func (w *watcher) readJIT(ctx context.Context, p *corev1.Pod, n int) {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	var s *jvmmetrics.Scraper // once the pod network knows the port (the broker launched)
	for {
		if s == nil {
			if u, err := w.net.PodURL(p, w.jmxPort); err == nil {
				s = &jvmmetrics.Scraper{URL: u + "/metrics?name[]=jvm_compilation_time_seconds_total", Client: w.http}
			}
		}
		if s != nil {
			if d, err := s.CompileTime(ctx); err == nil {
				w.mu.Lock()
				w.tl.add(Event{At: time.Now(), Pod: n, Broker: w.broker[p.Name], Kind: KindJIT, Value: d.Seconds()})
				w.mu.Unlock()
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// outcome is the sidecar's verdict from its /status, in a few words ("budget_expired, 123
// probes in 15.0 s"), or why it could not be read; and its run's figures (nil then).
func (w *watcher) outcome(ctx context.Context, url string) (string, *SidecarRun) {
	_, body, err := w.get(ctx, url)
	if err != nil {
		return "status: " + err.Error(), nil
	}
	var run SidecarRun // its fields are /status's own
	if err := json.Unmarshal(body, &run); err != nil {
		return "status: " + err.Error(), nil
	}
	return fmt.Sprintf("%s, %d probes in %.1f s", run.Outcome, run.Succeeded, run.Seconds), &run
}
