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
// probes"), or why it could not be read.
func (w *watcher) outcome(ctx context.Context, url string) string {
	_, body, err := w.get(ctx, url)
	if err != nil {
		return "status: " + err.Error()
	}
	var st struct {
		Outcome         string  `json:"outcome"`
		ProbesSucceeded int64   `json:"probes_succeeded"`
		DurationSeconds float64 `json:"duration_seconds"`
	}
	if err := json.Unmarshal(body, &st); err != nil {
		return "status: " + err.Error()
	}
	return fmt.Sprintf("%s, %d probes in %.1f s", st.Outcome, st.ProbesSucceeded, st.DurationSeconds)
}
