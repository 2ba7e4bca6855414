package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	yaml "go.yaml.in/yaml/v3"
)

// The built warmup-inject, as Helm runs it: these tests exec the binary, not inject.Main.
var (
	binOnce sync.Once
	binDir  string
	binPath string
	binErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// binary builds the command once per test run (not in TestMain: fuzz workers need no binary).
func binary(t *testing.T) string {
	t.Helper()
	binOnce.Do(func() {
		binDir, binErr = os.MkdirTemp("", "warmup-inject-bin")
		if binErr != nil {
			return
		}
		binPath = filepath.Join(binDir, "warmup-inject")
		if out, err := exec.Command("go", "build", "-o", binPath, ".").CombinedOutput(); err != nil {
			binErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}

// officialChart reads a rendering of the official Pinot chart (testdata/pinot-helm, whose
// README gives the helm command behind each file).
func officialChart(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "pinot-helm", name))
	if err != nil {
		t.Fatalf("reading fixture: %v", err)
	}
	return b
}

// valuesFile writes this chart's values for --values.
func valuesFile(t *testing.T, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "warmup-values.yaml")
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// result is one run of the binary.
type result struct {
	stdout, stderr string
	code           int
}

func runBinary(t *testing.T, in []byte, args ...string) result {
	t.Helper()
	cmd := exec.Command(binary(t), args...)
	cmd.Stdin = bytes.NewReader(in)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
	default:
		t.Fatalf("running warmup-inject: %v", err)
	}
	return result{out.String(), errb.String(), cmd.ProcessState.ExitCode()}
}

// mustRun runs the binary and fails the test unless it exits 0.
func mustRun(t *testing.T, in []byte, args ...string) result {
	t.Helper()
	r := runBinary(t, in, args...)
	if r.code != 0 {
		t.Fatalf("warmup-inject %v: exit %d: %s", args, r.code, r.stderr)
	}
	return r
}

// manifest is one decoded document.
type manifest map[string]any

func (m manifest) get(keys ...string) any {
	var cur any = map[string]any(m)
	for _, k := range keys {
		mm, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = mm[k]
	}
	return cur
}

// decodeAll decodes every non-empty document of a stream.
func decodeAll(t *testing.T, stream string) []manifest {
	t.Helper()
	dec := yaml.NewDecoder(strings.NewReader(stream))
	var out []manifest
	for {
		var m map[string]any
		err := dec.Decode(&m)
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatalf("output is not YAML: %v", err)
		}
		if m != nil {
			out = append(out, manifest(m))
		}
	}
}

// statefulSet is the StatefulSet named name.
func statefulSet(t *testing.T, objs []manifest, name string) manifest {
	t.Helper()
	for _, o := range objs {
		if o.get("kind") == "StatefulSet" && o.get("metadata", "name") == name {
			return o
		}
	}
	t.Fatalf("no StatefulSet %s in the output", name)
	return nil
}

// container is the pod's container named name in list (containers or initContainers), or nil.
func container(sts manifest, list, name string) map[string]any {
	items, _ := sts.get("spec", "template", "spec", list).([]any)
	for _, c := range items {
		if m, ok := c.(map[string]any); ok && m["name"] == name {
			return m
		}
	}
	return nil
}

// sidecars counts the warmup-sidecar containers in both lists.
func sidecars(sts manifest) int {
	n := 0
	for _, list := range []string{"containers", "initContainers"} {
		if container(sts, list, "warmup-sidecar") != nil {
			n++
		}
	}
	return n
}

// envEntries are a container's env entries named name, in order.
func envEntries(c map[string]any, name string) []map[string]any {
	var out []map[string]any
	items, _ := c["env"].([]any)
	for _, e := range items {
		if m, ok := e.(map[string]any); ok && m["name"] == name {
			out = append(out, m)
		}
	}
	return out
}

// envValue is what the kubelet gives the container for name: the last literal entry's value.
func envValue(c map[string]any, name string) string {
	entries := envEntries(c, name)
	if len(entries) == 0 {
		return ""
	}
	v, _ := entries[len(entries)-1]["value"].(string)
	return v
}
