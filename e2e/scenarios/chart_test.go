//go:build e2e

package scenarios

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/e2e/container"
	"github.com/warmup-sidecar/warmup-sidecar/internal/report"
)

// The container the chart renders (through warmup-inject, the post-renderer, on the official
// chart's output) is what runs here: the image of this tree (scripts/image.sh, amd64) under podman
// and runc, with the rendered env, args, securityContext and resources, beside the real broker in
// one network namespace as in a pod. Its readinessProbe is polled the way the kubelet does
// (period, timeout, thresholds) after a cold broker restart; then SIGTERM and the pod's grace
// period, and it must exit 0.
func TestChartRenderedContainerAgainstRealPinot(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	port, err := container.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	pod, err := container.RenderedPod(fmt.Sprintf("warmup:\n  brokerUrl: %s\n  controllerUrl: %s\n  listenPort: %d\n",
		pinot.BrokerURL(), pinot.ControllerURL(), port))
	if err != nil {
		t.Fatal(err)
	}
	c := pod.Sidecar
	env := c.EnvMap()
	if env["WARMUP_BROKER_URL"] != pinot.BrokerURL() || c.ReadinessProbe.HTTPGet.Path != "/readyz" || c.LivenessProbe.HTTPGet.Path != "/livez" {
		t.Fatalf("rendered container: env %v readiness %q liveness %q", env, c.ReadinessProbe.HTTPGet.Path, c.LivenessProbe.HTTPGet.Path)
	}
	t.Logf("chart env: %v; readinessProbe %+v; securityContext %s", env, c.ReadinessProbe, c.SecurityContext)

	built := time.Now()
	archive, err := container.BuildArchive(ctx, t.TempDir(), "linux/amd64")
	if err != nil {
		t.Fatal(err)
	}
	podman, image := container.LoadForTest(t, ctx, archive, "amd64")
	t.Logf("image built and loaded in %s", time.Since(built).Round(100*time.Millisecond))

	coldBroker(t)
	start := time.Now()
	ctr, err := podman.Run(ctx, image, pod)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if t.Failed() {
			t.Logf("container logs:\n%s", ctr.Logs())
		}
	}()
	rp := c.ReadinessProbe
	client := http.Client{Timeout: time.Duration(rp.TimeoutSeconds) * time.Second}
	time.Sleep(time.Duration(rp.InitialDelaySeconds) * time.Second)
	successes, probes := 0, 0
	for successes < max(rp.SuccessThreshold, 1) {
		if time.Since(start) > 4*time.Minute {
			t.Fatal("kubelet-style probe never saw Ready")
		}
		time.Sleep(time.Duration(rp.PeriodSeconds) * time.Second)
		probes++
		resp, err := client.Get(ctr.URL + rp.HTTPGet.Path)
		if err == nil && resp.StatusCode == 200 {
			successes++
		} else {
			successes = 0
		}
		if err == nil {
			resp.Body.Close()
		}
	}
	st, err := containerStatus(ctr.URL)
	if err != nil || st.Outcome == "" {
		t.Fatalf("pod Ready before the warmup had an outcome: %+v %v", st, err)
	}
	t.Logf("pod would turn Ready %s after a cold broker restart (%d kubelet probes, period %ds): outcome %s, %d probes in %.1fs",
		time.Since(start).Round(time.Second), probes, rp.PeriodSeconds, st.Outcome, st.ProbesSucceeded, st.DurationSeconds)

	code, took, err := ctr.Stop(ctx, time.Duration(pod.TerminationGracePeriodSeconds)*time.Second)
	if err != nil || code != 0 {
		t.Fatalf("SIGTERM: exit %d after %s (grace %ds): %v", code, took.Round(time.Millisecond), pod.TerminationGracePeriodSeconds, err)
	}
	t.Logf("SIGTERM: exit 0 after %s (grace %ds)", took.Round(time.Millisecond), pod.TerminationGracePeriodSeconds)
}

// containerStatus fetches the sidecar's /status.
func containerStatus(url string) (report.Status, error) {
	var s report.Status
	c := http.Client{Timeout: 2 * time.Second}
	resp, err := c.Get(url + "/status")
	if err != nil {
		return s, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return s, errors.New(resp.Status)
	}
	return s, json.NewDecoder(resp.Body).Decode(&s)
}
