// Package container runs the warmup-sidecar image the way a broker pod runs it: podman with the
// runc runtime, the container the chart renders (its env, args, securityContext and resources) in
// the broker's network namespace, stopped within the pod's termination grace period. The
// definition comes from warmup-inject's output on the official Pinot chart's manifests, so what
// runs here is what a cluster would run.
package container

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/warmup-sidecar/warmup-sidecar/e2e/cluster"
	"github.com/warmup-sidecar/warmup-sidecar/internal/inject"
)

// Container is the sidecar container as rendered, in the fields a pod run needs.
type Container struct {
	Name            string          `json:"name"`
	Image           string          `json:"image"`
	Command         []string        `json:"command"`
	Args            []string        `json:"args"`
	Env             []EnvVar        `json:"env"`
	ReadinessProbe  Probe           `json:"readinessProbe"`
	LivenessProbe   Probe           `json:"livenessProbe"`
	Resources       json.RawMessage `json:"resources"`
	SecurityContext json.RawMessage `json:"securityContext"`
	VolumeMounts    []struct {
		Name string `json:"name"`
	} `json:"volumeMounts"`
}

// EnvVar is one env entry; ValueFrom is kept only to refuse it (nothing here resolves Secrets).
type EnvVar struct {
	Name      string          `json:"name"`
	Value     string          `json:"value"`
	ValueFrom json.RawMessage `json:"valueFrom"`
}

// Probe is an httpGet probe and its kubelet timing.
type Probe struct {
	HTTPGet struct {
		Path string `json:"path"`
	} `json:"httpGet"`
	InitialDelaySeconds int `json:"initialDelaySeconds"`
	PeriodSeconds       int `json:"periodSeconds"`
	TimeoutSeconds      int `json:"timeoutSeconds"`
	FailureThreshold    int `json:"failureThreshold"`
	SuccessThreshold    int `json:"successThreshold"`
}

// Pod is the sidecar and what the kubelet takes from the pod around it.
type Pod struct {
	Sidecar Container
	// TerminationGracePeriodSeconds is the pod's: SIGTERM to SIGKILL.
	TerminationGracePeriodSeconds int64
}

// EnvMap returns the env as a map.
func (c Container) EnvMap() map[string]string {
	m := map[string]string{}
	for _, e := range c.Env {
		m[e.Name] = e.Value
	}
	return m
}

// Render runs warmup-inject with valuesYAML (this chart's values) on the official Pinot chart's
// rendered manifests (testdata/pinot-helm/default.yaml) and returns its output.
func Render(valuesYAML string) (string, error) {
	root, err := cluster.RepoRoot()
	if err != nil {
		return "", err
	}
	fixture, err := os.ReadFile(filepath.Join(root, "testdata", "pinot-helm", "default.yaml"))
	if err != nil {
		return "", fmt.Errorf("reading the official chart's manifests: %w", err)
	}
	f, err := os.CreateTemp("", "warmup-values-*.yaml")
	if err != nil {
		return "", fmt.Errorf("writing the values file: %w", err)
	}
	defer os.Remove(f.Name())
	if _, err := f.WriteString(valuesYAML); err != nil {
		f.Close()
		return "", fmt.Errorf("writing the values file: %w", err)
	}
	if err := f.Close(); err != nil {
		return "", fmt.Errorf("writing the values file: %w", err)
	}
	var out, errb bytes.Buffer
	if code := inject.Main([]string{"--values", f.Name()}, bytes.NewReader(fixture), &out, &errb); code != 0 {
		return "", fmt.Errorf("warmup-inject: exit %d: %s", code, strings.TrimSpace(errb.String()))
	}
	return out.String(), nil
}

// RenderedPod is FindSidecar of Render(valuesYAML).
func RenderedPod(valuesYAML string) (Pod, error) {
	out, err := Render(valuesYAML)
	if err != nil {
		return Pod{}, err
	}
	return FindSidecar(out)
}

// FreePort is a loopback TCP port nothing listens on now.
func FreePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("finding a free port: %w", err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// FindSidecar returns the warmup-sidecar container of the broker StatefulSet in manifests (in
// containers, or initContainers as a native sidecar) and its pod's grace period (Kubernetes'
// default, 30s, when the pod leaves it unset).
func FindSidecar(manifests string) (Pod, error) {
	for _, doc := range strings.Split(manifests, "\n---") {
		var obj struct {
			Kind string `json:"kind"`
			Spec struct {
				Template struct {
					Spec struct {
						TerminationGracePeriodSeconds *int64      `json:"terminationGracePeriodSeconds"`
						Containers                    []Container `json:"containers"`
						InitContainers                []Container `json:"initContainers"`
					} `json:"spec"`
				} `json:"template"`
			} `json:"spec"`
		}
		if err := yaml.Unmarshal([]byte(doc), &obj); err != nil || obj.Kind != "StatefulSet" {
			continue
		}
		spec := obj.Spec.Template.Spec
		for _, c := range append(spec.Containers, spec.InitContainers...) {
			if c.Name != "warmup-sidecar" {
				continue
			}
			grace := int64(30)
			if spec.TerminationGracePeriodSeconds != nil {
				grace = *spec.TerminationGracePeriodSeconds
			}
			return Pod{Sidecar: c, TerminationGracePeriodSeconds: grace}, nil
		}
	}
	return Pod{}, errors.New("no warmup-sidecar container in any StatefulSet of the manifests")
}
