package render

import (
	"fmt"

	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/engine"

	"github.com/warmup-sidecar/warmup-sidecar/internal/inject/chartvalues"
)

// Renderer renders the chart's injection template with Helm's own library: chartutil lays the
// values over the chart's defaults and checks values.schema.json, engine.Render executes the
// templates. What inject adds is what `helm template` renders for the same values.
type Renderer struct {
	chart  *chart.Chart
	user   map[string]any // merged --values files
	files  []string
	caps   *chartutil.Capabilities
	values map[string]any // user values coalesced with the chart defaults, schema-checked
}

// releaseName is .Release.Name in what inject renders (the chart's injection templates do not
// use it; the release being post-rendered is not known to a post-renderer).
const releaseName = "inject"

// New renders with the values of the --values files, in order (ReadValues), for the cluster's
// Kubernetes version kubeVersion (Helm's default when empty).
func New(files []string, kubeVersion string) (*Renderer, error) {
	user, err := ReadValues(files)
	if err != nil {
		return nil, err
	}
	return NewWith(user, files, kubeVersion)
}

// NewWith renders with the given user values (files only name them in messages).
func NewWith(user map[string]any, files []string, kubeVersion string) (*Renderer, error) {
	c, err := loadChart()
	if err != nil {
		return nil, err
	}
	caps := chartutil.DefaultCapabilities.Copy()
	if kubeVersion != "" {
		kv, err := chartutil.ParseKubeVersion(kubeVersion)
		if err != nil {
			return nil, fmt.Errorf("parsing --kube-version %q: %w", kubeVersion, err)
		}
		caps.KubeVersion = *kv
	}
	r := &Renderer{chart: c, user: user, files: files, caps: caps}
	// Validate once up front so a bad values file fails before any manifest is read.
	top, err := r.topValues(user, "")
	if err != nil {
		return nil, err
	}
	r.values = top["Values"].(chartutil.Values).AsMap()
	return r, nil
}

// topValues is what Helm renders with: .Release, .Capabilities, .Chart, and .Values, the
// given values coalesced over the chart's defaults and checked against its schema.
func (r *Renderer) topValues(user map[string]any, namespace string) (chartutil.Values, error) {
	opts := chartutil.ReleaseOptions{Name: releaseName, Namespace: namespace, Revision: 1, IsInstall: true}
	top, err := chartutil.ToRenderValues(r.chart, user, opts, r.caps)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", DescribeFiles(r.files), err)
	}
	return top, nil
}

// Values are the user's values coalesced with the chart's defaults, schema-checked.
func (r *Renderer) Values() map[string]any { return r.values }

// User are the user's values: the --values files merged, or as given to NewWith.
func (r *Renderer) User() map[string]any { return r.user }

// Files names the --values files, for messages.
func (r *Renderer) Files() []string { return r.files }

// Enabled is the chart's opt-in switch after inject's default (true) and the values files.
func (r *Renderer) Enabled() bool {
	b, _ := chartvalues.Lookup(r.values, "enabled").(bool)
	return b
}

// Render renders the injection for one broker pod in namespace: the user's values plus what
// inject read from the manifests (overrides: the broker port, and the controller URL when the
// values leave it empty). It returns the chart's pinot-broker-warmup.injection output.
func (r *Renderer) Render(overrides map[string]any, namespace string) (string, error) {
	top, err := r.topValues(chartvalues.Merge(r.user, overrides), namespace)
	if err != nil {
		return "", err
	}
	out, err := engine.Render(r.chart, top)
	if err != nil {
		return "", fmt.Errorf("rendering the chart with %s: %w", DescribeFiles(r.files), err)
	}
	return out[r.chart.Name()+"/"+injectionTemplate], nil
}
