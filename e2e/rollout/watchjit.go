package rollout

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
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
	for {
		if u, err := w.net.PodURL(p, w.jmxPort); err == nil {
			s := jvmmetrics.Scraper{URL: u + "/metrics?name[]=jvm_compilation_time_seconds_total", Client: w.http}
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
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return "status: " + err.Error()
	}
	resp, err := w.http.Do(req)
	if err != nil {
		return "status: " + err.Error()
	}
	defer resp.Body.Close()
	var st struct {
		Outcome         string  `json:"outcome"`
		ProbesSucceeded int64   `json:"probes_succeeded"`
		DurationSeconds float64 `json:"duration_seconds"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&st); err != nil {
		return "status: " + err.Error()
	}
	return fmt.Sprintf("%s, %d probes in %.1f s", st.Outcome, st.ProbesSucceeded, st.DurationSeconds)
}
