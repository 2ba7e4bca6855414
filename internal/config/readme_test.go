package config

import (
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/warmup-sidecar/warmup-sidecar/internal/markdown"
)

// The configuration page's table of variables is the operator's contract: it lists every
// variable Config reads, with the default Config applies ("empty" for none).
func TestReadmeConfigurationTableMatchesConfig(t *testing.T) {
	b, err := os.ReadFile("../../docs/configuration.md")
	if err != nil {
		t.Fatal(err)
	}
	rows, err := markdown.Table(string(b), "## Environment variables")
	if err != nil {
		t.Fatalf("docs/configuration.md: %v", err)
	}
	defaults := map[string]string{}
	ct := reflect.TypeOf(Config{})
	for i := range ct.NumField() {
		if f := ct.Field(i); f.Tag.Get("ignored") != "true" {
			defaults[f.Tag.Get("envconfig")] = f.Tag.Get("default")
		}
	}
	documented := map[string]bool{}
	for _, r := range rows {
		if len(r) != 3 {
			t.Errorf("docs/configuration.md row %q: want 3 cells (variable, default, meaning)", r)
			continue
		}
		name := strings.Trim(r[0], "`")
		documented[name] = true
		want, ok := defaults[name]
		if !ok {
			t.Errorf("docs/configuration.md documents %s, which Config does not read", name)
			continue
		}
		got := strings.Trim(r[1], "`")
		if r[1] == "empty" {
			got = ""
		}
		if got != want {
			t.Errorf("docs/configuration.md: %s defaults to %q; Config's default is %q", name, r[1], want)
		}
	}
	for name := range defaults {
		if !documented[name] {
			t.Errorf("docs/configuration.md's table lacks %s", name)
		}
	}
}
