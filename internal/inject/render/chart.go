package render

import (
	"fmt"
	"io/fs"
	"path"
	"strings"

	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chart/loader"

	"github.com/warmup-sidecar/warmup-sidecar/charts"
)

// injectionTemplate is the only template inject renders (not "_"-prefixed: Helm outputs no partials).
// What it produces is defined by the chart's own "pinot-broker-warmup.injection" template.
const injectionTemplate = "templates/inject.yaml"

// loadChart loads the chart embedded in the binary, keeping only its helper templates (the
// "_*.tpl" files that hold the container definition) plus the injection entry point. The
// PodMonitor, dashboard and NOTES are not rendered by inject: they belong to a chart install.
func loadChart() (*chart.Chart, error) {
	var files []*loader.BufferedFile
	root := charts.PinotBrokerWarmupDir
	err := fs.WalkDir(charts.PinotBrokerWarmup, root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(charts.PinotBrokerWarmup, p)
		if err != nil {
			return err
		}
		files = append(files, &loader.BufferedFile{Name: strings.TrimPrefix(p, root+"/"), Data: data})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("reading the embedded chart: %w", err)
	}
	c, err := loader.LoadFiles(files)
	if err != nil {
		return nil, fmt.Errorf("loading the embedded chart: %w", err)
	}
	var templates []*chart.File
	for _, t := range c.Templates {
		if strings.HasPrefix(path.Base(t.Name), "_") {
			templates = append(templates, t)
		}
	}
	c.Templates = append(templates, &chart.File{
		Name: injectionTemplate,
		Data: []byte(`{{ include "pinot-broker-warmup.injection" . }}`),
	})
	return c, nil
}
