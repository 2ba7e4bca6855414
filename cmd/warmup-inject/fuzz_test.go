package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/internal/inject"
)

// FuzzInjectManifest feeds arbitrary manifest streams to warmup-inject
// (the Helm post-renderer reads whatever helm renders, including other charts'
// YAML): it must never panic, never hang, and answer 0 (injected or passed
// through) or 1 (bad input) with one error line.
func FuzzInjectManifest(f *testing.F) {
	for _, name := range []string{"default.yaml", "customized.yaml", "extraenv-javaopts.yaml",
		"extraenv-javaopts-valuefrom.yaml", "renamed.yaml", "unnamed-port.yaml"} {
		if b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "pinot-helm", name)); err == nil {
			f.Add(b)
		}
	}
	for _, s := range []string{
		"",
		"---\n",
		"apiVersion: apps/v1\nkind: StatefulSet\nmetadata:\n  name: pinot-broker\nspec:\n  template:\n    spec:\n      containers: []\n",
		"apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: pinot-broker, labels: {component: broker}}\nspec: {template: {spec: {containers: [{name: broker, image: apachepinot/pinot}]}}}\n",
		"kind: StatefulSet\nspec: {template: {spec: {containers: 7}}}\n",
		"a: &x [*x]\n",
		"- - - - -\n",
		"apiVersion: v1\nkind: List\nitems: [{kind: StatefulSet}]\n",
		"\xff\xfe\x00",
		"key: \"unterminated\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, manifests []byte) {
		var out, errb bytes.Buffer
		done := make(chan int, 1)
		go func() { done <- inject.Main(nil, bytes.NewReader(manifests), &out, &errb) }()
		select {
		case code := <-done:
			switch code {
			case 0:
			case 1:
				if msg := strings.TrimSpace(errb.String()); !strings.HasPrefix(msg, "warmup-inject: ") {
					t.Fatalf("exit 1 with stderr %q, want a 'warmup-inject: ' line", msg)
				}
			default:
				t.Fatalf("exit %d on manifest input (stderr %q), want 0 or 1", code, errb.String())
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("warmup-inject still running after 20s on a %d-byte input", len(manifests))
		}
	})
}
