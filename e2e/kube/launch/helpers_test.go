package launch

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/warmup-sidecar/warmup-sidecar/e2e/cluster"
	"github.com/warmup-sidecar/warmup-sidecar/e2e/container"
)

// manifests are the objects of a rendered chart the tests read: StatefulSets and ConfigMaps.
type manifests struct {
	sets       map[string]appsv1.StatefulSet
	configMaps map[string]corev1.ConfigMap
}

// parseManifests reads a multi-document manifest stream.
func parseManifests(t *testing.T, stream string) manifests {
	t.Helper()
	m := manifests{sets: map[string]appsv1.StatefulSet{}, configMaps: map[string]corev1.ConfigMap{}}
	for _, doc := range strings.Split(stream, "\n---") {
		var head struct {
			Kind string `json:"kind"`
		}
		if err := yaml.Unmarshal([]byte(doc), &head); err != nil {
			t.Fatalf("manifest: %v", err)
		}
		switch head.Kind {
		case "StatefulSet":
			var s appsv1.StatefulSet
			if err := yaml.UnmarshalStrict([]byte(doc), &s); err != nil {
				t.Fatalf("StatefulSet: %v", err)
			}
			m.sets[s.Name] = s
		case "ConfigMap":
			var cm corev1.ConfigMap
			if err := yaml.UnmarshalStrict([]byte(doc), &cm); err != nil {
				t.Fatalf("ConfigMap: %v", err)
			}
			m.configMaps[cm.Name] = cm
		}
	}
	return m
}

// chartFixture is the official chart's rendered manifests (testdata/pinot-helm/default.yaml, the
// project's copy of the shared fixture).
func chartFixture(t *testing.T) string {
	t.Helper()
	root, err := cluster.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(root, "testdata", "pinot-helm", "default.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// injected is warmup-inject's output on the chart fixture with values.
func injected(t *testing.T, values string) string {
	t.Helper()
	out, err := container.Render(values)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// podFixture stands in for the node agent in the tests: it gives each volume of a pod template a
// host dir under dir (ConfigMaps written from the manifests, Secrets from secrets: volume name →
// file → content) and turns a container of the template into a launcher's Container.
type podFixture struct {
	t       *testing.T
	m       manifests
	spec    corev1.PodSpec
	pod     string
	dir     string
	net     PortMap
	secrets map[string]map[string]string
}

func newPod(t *testing.T, m manifests, set, pod, dir string, net PortMap) *podFixture {
	t.Helper()
	s, ok := m.sets[set]
	if !ok {
		t.Fatalf("no StatefulSet %s in the manifests", set)
	}
	return &podFixture{t: t, m: m, spec: s.Spec.Template.Spec, pod: pod, dir: dir, net: net, secrets: map[string]map[string]string{}}
}

// volume is the host dir of the pod's volume name, its files written.
func (p *podFixture) volume(name string) string {
	p.t.Helper()
	dir := filepath.Join(p.dir, "volumes", name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		p.t.Fatal(err)
	}
	files := map[string]string{}
	for _, v := range p.spec.Volumes {
		if v.Name != name {
			continue
		}
		switch {
		case v.ConfigMap != nil:
			cm, ok := p.m.configMaps[v.ConfigMap.Name]
			if !ok {
				p.t.Fatalf("volume %s: no ConfigMap %s", name, v.ConfigMap.Name)
			}
			files = cm.Data
		case v.Secret != nil:
			files = p.secrets[name]
		}
	}
	for f, content := range files {
		if err := os.WriteFile(filepath.Join(dir, f), []byte(content), 0o644); err != nil {
			p.t.Fatal(err)
		}
	}
	return dir
}

// container is the template's container name (in containers or initContainers) as the node agent
// hands it to a launcher.
func (p *podFixture) container(name string) Container {
	p.t.Helper()
	for _, k := range append(p.spec.Containers, p.spec.InitContainers...) {
		if k.Name != name {
			continue
		}
		c := Container{Pod: p.pod, Name: k.Name, Image: k.Image, Command: k.Command, Args: k.Args,
			Dir: filepath.Join(p.dir, "containers", k.Name), Net: p.net}
		for _, e := range k.Env {
			if e.ValueFrom != nil {
				p.t.Fatalf("container %s env %s: valueFrom is the node agent's to resolve", name, e.Name)
			}
			c.Env = append(c.Env, e.Name+"="+e.Value)
		}
		for _, vm := range k.VolumeMounts {
			c.Mounts = append(c.Mounts, Mount{Path: vm.MountPath, HostPath: p.volume(vm.Name), ReadOnly: vm.ReadOnly})
		}
		if err := os.MkdirAll(c.Dir, 0o755); err != nil {
			p.t.Fatal(err)
		}
		return c
	}
	p.t.Fatalf("no container %s in the pod template", name)
	return Container{}
}

// setEnv replaces (or appends) name's value in c's env.
func setEnv(c *Container, name, value string) {
	for i, kv := range c.Env {
		if k, _, _ := strings.Cut(kv, "="); k == name {
			c.Env[i] = name + "=" + value
			return
		}
	}
	c.Env = append(c.Env, name+"="+value)
}

// setArg replaces the value after flag in c.Args.
func setArg(t *testing.T, c *Container, flag, value string) {
	t.Helper()
	for i := range len(c.Args) - 1 {
		if c.Args[i] == flag {
			c.Args[i+1] = value
			return
		}
	}
	t.Fatalf("container %s: no %s in args %q", c.Name, flag, c.Args)
}

// envOf is the value of name in env ("" and false when unset; the last entry wins).
func envOf(env []string, name string) (string, bool) {
	return Container{Env: env}.Getenv(name)
}
