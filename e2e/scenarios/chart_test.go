//go:build e2e

package scenarios

import (
	"bytes"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/warmup-sidecar/warmup-sidecar/internal/inject"
)

// renderedContainer is the part of the chart's sidecar container this test runs.
type renderedContainer struct {
	Name string `json:"name"`
	Env  []struct {
		Name  string `json:"name"`
		Value string `json:"value"`
	} `json:"env"`
	ReadinessProbe struct {
		HTTPGet struct {
			Path string `json:"path"`
		} `json:"httpGet"`
		InitialDelaySeconds int `json:"initialDelaySeconds"`
		PeriodSeconds       int `json:"periodSeconds"`
		TimeoutSeconds      int `json:"timeoutSeconds"`
		FailureThreshold    int `json:"failureThreshold"`
		SuccessThreshold    int `json:"successThreshold"`
	} `json:"readinessProbe"`
	LivenessProbe struct {
		HTTPGet struct {
			Path string `json:"path"`
		} `json:"httpGet"`
	} `json:"livenessProbe"`
}

// The container the chart renders (through warmup-inject, the post-renderer, on
// the official chart's output) is what runs here: its env exactly, pointed at the
// loopback cluster through the chart's own values, and its readinessProbe
// polled the way the kubelet does (period, timeout, thresholds).
func TestChartRenderedContainerAgainstRealPinot(t *testing.T) {
	values := filepath.Join(t.TempDir(), "values.yaml")
	if err := os.WriteFile(values, []byte(fmt.Sprintf("warmup:\n  brokerUrl: %s\n  controllerUrl: %s\n",
		pinot.BrokerURL(), pinot.ControllerURL())), 0o644); err != nil {
		t.Fatal(err)
	}
	fixture, err := os.ReadFile("../../testdata/pinot-helm/default.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if code := inject.Main([]string{"--values", values}, bytes.NewReader(fixture), &out, &errb); code != 0 {
		t.Fatalf("warmup-inject: exit %d: %s", code, errb.String())
	}
	c := sidecarContainer(t, out.String())
	env := map[string]string{}
	for _, e := range c.Env {
		env[e.Name] = e.Value
	}
	if env["WARMUP_BROKER_URL"] != pinot.BrokerURL() || c.ReadinessProbe.HTTPGet.Path != "/readyz" || c.LivenessProbe.HTTPGet.Path != "/livez" {
		t.Fatalf("rendered container: env %v readiness %q liveness %q", env, c.ReadinessProbe.HTTPGet.Path, c.LivenessProbe.HTTPGet.Path)
	}
	t.Logf("chart env: %v; readinessProbe %+v", env, c.ReadinessProbe)

	coldBroker(t)
	start := time.Now()
	p := startSidecar(t, env)
	rp := c.ReadinessProbe
	client := http.Client{Timeout: time.Duration(rp.TimeoutSeconds) * time.Second}
	time.Sleep(time.Duration(rp.InitialDelaySeconds) * time.Second)
	successes, probes := 0, 0
	for successes < max(rp.SuccessThreshold, 1) {
		if time.Since(start) > 4*time.Minute {
			t.Fatalf("kubelet-style probe never saw Ready; logs:\n%s", p.Logs())
		}
		time.Sleep(time.Duration(rp.PeriodSeconds) * time.Second)
		probes++
		resp, err := client.Get(p.URL + rp.HTTPGet.Path)
		if err == nil && resp.StatusCode == 200 {
			successes++
		} else {
			successes = 0
		}
		if err == nil {
			resp.Body.Close()
		}
	}
	st, err := p.Status()
	if err != nil || st.Outcome == "" {
		t.Fatalf("pod Ready before the warmup had an outcome: %+v %v", st, err)
	}
	t.Logf("pod would turn Ready %s after a cold broker restart (%d kubelet probes, period %ds): outcome %s, %d probes in %.1fs",
		time.Since(start).Round(time.Second), probes, rp.PeriodSeconds, st.Outcome, st.ProbesSucceeded, st.DurationSeconds)
}

// sidecarContainer finds the warmup-sidecar container in the broker StatefulSet.
func sidecarContainer(t *testing.T, manifests string) renderedContainer {
	t.Helper()
	for _, doc := range strings.Split(manifests, "\n---") {
		var obj struct {
			Kind string `json:"kind"`
			Spec struct {
				Template struct {
					Spec struct {
						Containers     []renderedContainer `json:"containers"`
						InitContainers []renderedContainer `json:"initContainers"`
					} `json:"spec"`
				} `json:"template"`
			} `json:"spec"`
		}
		if err := yaml.Unmarshal([]byte(doc), &obj); err != nil || obj.Kind != "StatefulSet" {
			continue
		}
		for _, c := range append(obj.Spec.Template.Spec.Containers, obj.Spec.Template.Spec.InitContainers...) {
			if c.Name == "warmup-sidecar" {
				return c
			}
		}
	}
	t.Fatal("no warmup-sidecar container in the injected manifests")
	return renderedContainer{}
}
