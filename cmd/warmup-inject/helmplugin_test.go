package main

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"

	yaml "go.yaml.in/yaml/v3"
)

// semver is SemVer 2.0.0's own expression: Helm 4 refuses a plugin whose version is not strict
// semver (no leading v, all three numbers).
var semver = regexp.MustCompile(`^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)` +
	`(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?` +
	`(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$`)

// The Helm 4 plugin (helm-plugin/warmup-inject, built by `make helm-plugin`) is what Helm 4's
// --post-renderer warmup-inject finds: a postrenderer/v1 plugin of that name running this binary
// from the plugin's directory, versioned as the chart the binary embeds.
// scripts/check-packaging.sh installs it into a real Helm 4 and renders the official chart through it.
func TestHelmPluginRunsThisBinaryAtTheChartVersion(t *testing.T) {
	var plugin struct {
		APIVersion    string `yaml:"apiVersion"`
		Name          string `yaml:"name"`
		Type          string `yaml:"type"`
		Runtime       string `yaml:"runtime"`
		Version       string `yaml:"version"`
		RuntimeConfig struct {
			PlatformCommand []struct {
				OS      string   `yaml:"os"`
				Arch    string   `yaml:"arch"`
				Command string   `yaml:"command"`
				Args    []string `yaml:"args"`
			} `yaml:"platformCommand"`
		} `yaml:"runtimeConfig"`
	}
	readYAML(t, filepath.Join("..", "..", "helm-plugin", "warmup-inject", "plugin.yaml"), &plugin)
	var chart struct {
		AppVersion string `yaml:"appVersion"`
	}
	readYAML(t, filepath.Join("..", "..", "charts", "pinot-broker-warmup", "Chart.yaml"), &chart)

	if plugin.APIVersion != "v1" || plugin.Name != "warmup-inject" || plugin.Type != "postrenderer/v1" || plugin.Runtime != "subprocess" {
		t.Errorf("plugin apiVersion %q name %q type %q runtime %q, want v1, warmup-inject, postrenderer/v1, subprocess",
			plugin.APIVersion, plugin.Name, plugin.Type, plugin.Runtime)
	}
	if !semver.MatchString(plugin.Version) {
		t.Errorf("plugin version %q is not strict semver (Helm 4 refuses it)", plugin.Version)
	}
	if plugin.Version != chart.AppVersion {
		t.Errorf("plugin version %q, chart appVersion %q: want them equal", plugin.Version, chart.AppVersion)
	}
	cmds := plugin.RuntimeConfig.PlatformCommand
	if len(cmds) != 1 || cmds[0].Command != "${HELM_PLUGIN_DIR}/bin/warmup-inject" || len(cmds[0].Args) != 0 || cmds[0].OS != "" || cmds[0].Arch != "" {
		t.Errorf("platformCommand %+v, want one, ${HELM_PLUGIN_DIR}/bin/warmup-inject on every platform, no args of its own", cmds)
	}
}

func readYAML(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}
