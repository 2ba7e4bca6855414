package inject

import (
	"fmt"

	yaml "go.yaml.in/yaml/v3"
	"helm.sh/helm/v3/pkg/chart"
)

// renderer renders the chart's injection template the way Helm does (engine.go: text/template,
// Sprig and Helm's include/fail/toYaml; coalesce.go: Helm's values coalescing; schema.go: the
// values schema check with Helm's validator): what inject adds is what `helm template` renders
// for the same values. The tests compare it with Helm's own library and CLI.
type renderer struct {
	chart  *chart.Chart
	engine *chartEngine
	schema *valuesSchema
	user   map[string]any // merged --values files
	files  []string
	caps   *capabilities
	values map[string]any // user values coalesced with the chart defaults, schema-checked
}

// injection is what the chart says to add to one broker pod.
type injection struct {
	containers     []*yaml.Node
	initContainers []*yaml.Node
	volumes        []*yaml.Node
	brokerConfig   string
}

// releaseName is .Release.Name in what inject renders (the chart's injection templates do not
// use it; the release being post-rendered is not known to a post-renderer).
const releaseName = "inject"

func newRenderer(files []string, kubeVersion string) (*renderer, error) {
	c, err := loadChart()
	if err != nil {
		return nil, err
	}
	eng, err := newChartEngine(c)
	if err != nil {
		return nil, fmt.Errorf("parsing the embedded chart's templates: %w", err)
	}
	schema, err := compileSchema(c)
	if err != nil {
		return nil, fmt.Errorf("compiling the embedded chart's values.schema.json: %w", err)
	}
	user, err := readValues(files)
	if err != nil {
		return nil, err
	}
	kv, err := parseKubeVersion(kubeVersion)
	if err != nil {
		return nil, fmt.Errorf("parsing --kube-version %q: %w", kubeVersion, err)
	}
	r := &renderer{chart: c, engine: eng, schema: schema, user: user, files: files, caps: &capabilities{KubeVersion: *kv}}
	// Validate once up front so a bad values file fails before any manifest is read.
	if r.values, err = r.coalesce(user); err != nil {
		return nil, err
	}
	return r, nil
}

// coalesce is chartutil.ToRenderValues' values step: user values over the chart's defaults,
// then the schema check.
func (r *renderer) coalesce(user map[string]any) (map[string]any, error) {
	vals, err := coalesceValues(r.chart, user)
	if err == nil {
		err = r.schema.validate(vals)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", describeFiles(r.files), err)
	}
	return vals, nil
}

// enabled is the chart's opt-in switch after inject's default (true) and the values files.
func (r *renderer) enabled() bool {
	b, _ := lookup(r.values, "enabled").(bool)
	return b
}

// renderText renders the chart's injection template for the user's values plus overrides.
func (r *renderer) renderText(overrides map[string]any, namespace string) (string, error) {
	vals, err := r.coalesce(mergeMaps(r.user, overrides))
	if err != nil {
		return "", err
	}
	out, err := r.engine.render(vals, releaseInfo(releaseName, namespace), r.caps)
	if err != nil {
		return "", fmt.Errorf("rendering the chart with %s: %w", describeFiles(r.files), err)
	}
	return out[r.chart.Name()+"/"+injectionTemplate], nil
}

// render renders the injection for one broker pod: the user's values plus what inject read
// from the manifests (the broker port, and the controller URL when the values leave it empty).
func (r *renderer) render(overrides map[string]any, namespace string) (injection, error) {
	text, err := r.renderText(overrides, namespace)
	if err != nil {
		return injection{}, err
	}
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(text), &doc); err != nil {
		return injection{}, fmt.Errorf("parsing the chart's pinot-broker-warmup.injection output: %w\n%s", err, text)
	}
	root := documentRoot(&doc)
	inj := injection{
		containers:     items(mapValue(root, "containers")),
		initContainers: items(mapValue(root, "initContainers")),
		volumes:        items(mapValue(root, "volumes")),
	}
	if bc := mapValue(root, "brokerConfig"); bc != nil {
		inj.brokerConfig = bc.Value
	}
	return inj, nil
}

// items is the entries of a sequence node; nil for a missing or null value.
func items(seq *yaml.Node) []*yaml.Node {
	if seq == nil || seq.Kind != yaml.SequenceNode {
		return nil
	}
	return seq.Content
}
