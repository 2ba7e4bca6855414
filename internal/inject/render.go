package inject

import (
	"fmt"

	yaml "go.yaml.in/yaml/v3"
	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/engine"

	"github.com/warmup-sidecar/warmup-sidecar/internal/inject/boost"
	"github.com/warmup-sidecar/warmup-sidecar/internal/inject/chartvalues"
	"github.com/warmup-sidecar/warmup-sidecar/internal/inject/yamlnode"
)

// renderer renders the chart's injection template with Helm's own library: chartutil lays the
// values over the chart's defaults and checks values.schema.json, engine.Render executes the
// templates. What inject adds is what `helm template` renders for the same values.
type renderer struct {
	chart  *chart.Chart
	user   map[string]any // merged --values files
	files  []string
	caps   *chartutil.Capabilities
	values map[string]any // user values coalesced with the chart defaults, schema-checked
}

// injection is what the chart says to add to one broker pod.
type injection struct {
	containers     []*yaml.Node
	initContainers []*yaml.Node
	volumes        []*yaml.Node
	brokerConfig   string
	brokerJavaOpts string // appended to the broker container's JVM options
	// brokerVolumeMounts go into the broker container (brokerJvm.aotCache).
	brokerVolumeMounts []*yaml.Node
	// brokerCpuBoost: the broker container's boosted CPU, the pod's ServiceAccount and the
	// objects beside the pod (empty when off).
	boost boost.Rendered
}

// releaseName is .Release.Name in what inject renders (the chart's injection templates do not
// use it; the release being post-rendered is not known to a post-renderer).
const releaseName = "inject"

func newRenderer(files []string, kubeVersion string) (*renderer, error) {
	user, err := readValues(files)
	if err != nil {
		return nil, err
	}
	return newRendererWith(user, files, kubeVersion)
}

// newRendererWith renders with the given user values (files only name them in messages).
func newRendererWith(user map[string]any, files []string, kubeVersion string) (*renderer, error) {
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
	r := &renderer{chart: c, user: user, files: files, caps: caps}
	// Validate once up front so a bad values file fails before any manifest is read.
	top, err := r.topValues(user, "")
	if err != nil {
		return nil, err
	}
	r.values = top["Values"].(chartutil.Values).AsMap()
	if err := r.checkKubeVersion(kubeVersion); err != nil {
		return nil, err
	}
	return r, nil
}

// checkKubeVersion: native-sidecar mode needs Kubernetes >= 1.29 and brokerCpuBoost >= 1.33 (in-place
// pod resize), which the chart checks against .Capabilities; a post-renderer gets no version from
// Helm, so the operator must give it (Helm shows a post-renderer's stderr only on failure: a
// warning would never be seen). The default mode, a regular container, needs none.
func (r *renderer) checkKubeVersion(kubeVersion string) error {
	if !r.enabled() || kubeVersion != "" {
		return nil
	}
	const give = "give the cluster's version with --kube-version (helm ... --post-renderer-args --kube-version=v1.33.0; kubectl version shows it)"
	if native, _ := chartvalues.Lookup(r.values, "nativeSidecar").(bool); native {
		return fmt.Errorf("%s: nativeSidecar is true, which needs Kubernetes >= 1.29, and a post-renderer cannot ask the cluster: %s, or set nativeSidecar: false",
			describeFiles(r.files), give)
	}
	if boost.On(r.values) {
		return fmt.Errorf("%s: brokerCpuBoost is on, which needs Kubernetes >= 1.33 (in-place pod resize), and a post-renderer cannot ask the cluster: %s, or set brokerCpuBoost.enabled: false",
			describeFiles(r.files), give)
	}
	return nil
}

// topValues is what Helm renders with: .Release, .Capabilities, .Chart, and .Values, the
// given values coalesced over the chart's defaults and checked against its schema.
func (r *renderer) topValues(user map[string]any, namespace string) (chartutil.Values, error) {
	opts := chartutil.ReleaseOptions{Name: releaseName, Namespace: namespace, Revision: 1, IsInstall: true}
	top, err := chartutil.ToRenderValues(r.chart, user, opts, r.caps)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", describeFiles(r.files), err)
	}
	return top, nil
}

// enabled is the chart's opt-in switch after inject's default (true) and the values files.
func (r *renderer) enabled() bool {
	b, _ := chartvalues.Lookup(r.values, "enabled").(bool)
	return b
}

// render renders the injection for one broker pod: the user's values plus what inject read
// from the manifests (the broker port, and the controller URL when the values leave it empty).
func (r *renderer) render(overrides map[string]any, namespace string) (injection, error) {
	top, err := r.topValues(chartvalues.Merge(r.user, overrides), namespace)
	if err != nil {
		return injection{}, err
	}
	out, err := engine.Render(r.chart, top)
	if err != nil {
		return injection{}, fmt.Errorf("rendering the chart with %s: %w", describeFiles(r.files), err)
	}
	return parseInjection(out[r.chart.Name()+"/"+injectionTemplate])
}

// parseInjection reads the chart's pinot-broker-warmup.injection output.
func parseInjection(text string) (injection, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(text), &doc); err != nil {
		return injection{}, fmt.Errorf("parsing the chart's pinot-broker-warmup.injection output: %w\n%s", err, text)
	}
	root := yamlnode.DocumentRoot(&doc)
	inj := injection{
		containers:         yamlnode.Items(yamlnode.MapValue(root, "containers")),
		initContainers:     yamlnode.Items(yamlnode.MapValue(root, "initContainers")),
		volumes:            yamlnode.Items(yamlnode.MapValue(root, "volumes")),
		brokerVolumeMounts: yamlnode.Items(yamlnode.MapValue(root, "brokerVolumeMounts")),
	}
	if bc := yamlnode.MapValue(root, "brokerConfig"); bc != nil {
		inj.brokerConfig = bc.Value
	}
	if jo := yamlnode.MapValue(root, "brokerJavaOpts"); jo != nil {
		inj.brokerJavaOpts = jo.Value
	}
	if bc := yamlnode.MapValue(root, "brokerCpu"); bc != nil {
		inj.boost.CPU = boost.CPU{
			Request: yamlnode.Scalar(yamlnode.MapValue(bc, "request")), Limit: yamlnode.Scalar(yamlnode.MapValue(bc, "limit")),
			GiveBackRequest: yamlnode.Scalar(yamlnode.MapValue(bc, "giveBackRequest")), GiveBackLimit: yamlnode.Scalar(yamlnode.MapValue(bc, "giveBackLimit")),
		}
	}
	if sa := yamlnode.MapValue(root, "podServiceAccount"); sa != nil {
		inj.boost.ServiceAccount = yamlnode.Scalar(yamlnode.MapValue(sa, "serviceAccountName"))
		inj.boost.NoAutomount = yamlnode.Scalar(yamlnode.MapValue(sa, "automountServiceAccountToken")) == "false"
	}
	if o := yamlnode.MapValue(root, "cpuBoostObjects"); o != nil {
		inj.boost.Objects = o.Value
	}
	return inj, nil
}
