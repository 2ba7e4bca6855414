package inject

import (
	"fmt"

	yaml "go.yaml.in/yaml/v3"

	"github.com/warmup-sidecar/warmup-sidecar/internal/inject/boost"
	"github.com/warmup-sidecar/warmup-sidecar/internal/inject/render"
	"github.com/warmup-sidecar/warmup-sidecar/internal/inject/yamlnode"
)

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

// renderFor renders the chart's injection for one broker pod and reads it.
func renderFor(r *render.Renderer, overrides map[string]any, namespace string) (injection, error) {
	text, err := r.Render(overrides, namespace)
	if err != nil {
		return injection{}, err
	}
	return parseInjection(text)
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
