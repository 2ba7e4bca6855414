package inject

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	yaml "go.yaml.in/yaml/v3"

	"github.com/warmup-sidecar/warmup-sidecar/internal/inject/boost"
	"github.com/warmup-sidecar/warmup-sidecar/internal/inject/chartvalues"
	"github.com/warmup-sidecar/warmup-sidecar/internal/inject/find"
	"github.com/warmup-sidecar/warmup-sidecar/internal/inject/official"
	"github.com/warmup-sidecar/warmup-sidecar/internal/inject/render"
	"github.com/warmup-sidecar/warmup-sidecar/internal/inject/yamlnode"
)

const valuesUsage = `usage: warmup-inject values [--values FILE]... --kube-version VERSION [--companion FILE] < manifests > warmup-pinot-values.yaml

The values route: reads a release of the official Pinot chart as rendered (helm template, with
your own values) and writes the values that add the warmup sidecar to its broker pods through
that chart's own keys: the sidecar as a native sidecar in broker.initContainers, and what the
--values files ask of the broker (its probes, JVM options, resources, volumes). Pass the output
last with -f to helm install/upgrade of the same release, or commit it for Argo CD or Flux.
--companion writes the values for this project's chart, installed as a second release in the
same namespace: the PodMonitor, the dashboard and brokerCpuBoost's RBAC for those brokers.

  helm template pinot pinot/pinot -n pinot -f my-values.yaml \
    | warmup-inject values -f warmup.yaml --kube-version 1.34.0 --companion warmup-companion.yaml \
    > warmup-pinot-values.yaml
  helm upgrade --install pinot pinot/pinot -n pinot -f my-values.yaml -f warmup-pinot-values.yaml
  helm upgrade --install pinot-warmup charts/pinot-broker-warmup -n pinot -f warmup-companion.yaml
`

// valuesMain runs `warmup-inject values`.
func valuesMain(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	c := newCommand(prog+" values", valuesUsage, stderr, "the cluster's Kubernetes `VERSION` (required: the sidecar is a native sidecar, Kubernetes >= 1.29)")
	companion := c.fs.String("companion", "", "write the pinot-broker-warmup chart's values for the same release to `FILE`")
	if code, done := c.parse(args); done {
		return code
	}
	return c.exit(runValues(c.values, *c.kubeVersion, *companion, stdin, stdout, stderr))
}

func runValues(files []string, kubeVersion, companionFile string, stdin io.Reader, stdout, stderr io.Writer) error {
	user, err := render.ReadValues(files)
	if err != nil {
		return usageErr(err)
	}
	if err := valuesRouteDefaults(user, files); err != nil {
		return usageErr(err)
	}
	if kubeVersion == "" {
		return usageErr(errors.New("--kube-version is required: the values route runs the sidecar as a native sidecar (Kubernetes >= 1.29), and nothing here can ask the cluster (kubectl version shows it)"))
	}
	r, err := render.NewWith(user, files, kubeVersion)
	if err != nil {
		return usageErr(err)
	}
	if !r.Enabled() {
		return usageErr(fmt.Errorf("%s: enabled is false: there is nothing to add (leave the values route's file out of the release instead)", render.DescribeFiles(files)))
	}
	raw, err := io.ReadAll(stdin)
	if err != nil {
		return inputErr(fmt.Errorf("reading manifests from stdin: %w", err))
	}
	route, err := valuesFor(r, raw, stderr)
	if err != nil {
		return err
	}
	if companionFile != "" {
		if err := os.WriteFile(companionFile, route.companion, 0o644); err != nil {
			return inputErr(fmt.Errorf("writing --companion %s: %w", companionFile, err))
		}
	}
	_, err = stdout.Write(route.overlay)
	return err
}

// valuesRouteDefaults: the official chart has a container list only in broker.initContainers,
// so the sidecar is a native sidecar; and no ServiceAccount value of the broker's own, so the
// boost's Role is bound to the broker pods' ServiceAccount. Values saying otherwise are refused.
func valuesRouteDefaults(user map[string]any, files []string) error {
	if native, set := chartvalues.Lookup(user, "nativeSidecar").(bool); set && !native {
		return fmt.Errorf("%s: nativeSidecar is false: the values route adds the sidecar through broker.initContainers, as a native sidecar (remove nativeSidecar, or use the post-renderer)", render.DescribeFiles(files))
	}
	user["nativeSidecar"] = true
	if create, set := chartvalues.Lookup(user, "brokerCpuBoost", "serviceAccount", "create").(bool); set && create {
		return fmt.Errorf("%s: brokerCpuBoost.serviceAccount.create is true: the official chart has no value to run the broker pods as a ServiceAccount of their own; the values route binds the boost's Role to theirs (set create: false, or use the post-renderer)", render.DescribeFiles(files))
	}
	if on, _ := chartvalues.Lookup(user, "brokerCpuBoost", "enabled").(bool); on {
		user["brokerCpuBoost"] = chartvalues.Merge(asMap(user["brokerCpuBoost"]), map[string]any{"serviceAccount": map[string]any{"create": false}})
	}
	return nil
}

// routeOutput is what the values route writes: the official chart's values and the companion's.
type routeOutput struct {
	overlay, companion []byte
}

// valuesFor injects the manifests as the post-renderer would and says the result as values.
func valuesFor(r *render.Renderer, raw []byte, log io.Writer) (routeOutput, error) {
	before, err := find.ParseStream(raw)
	if err != nil {
		return routeOutput{}, inputErr(err)
	}
	docs, err := find.ParseStream(raw)
	if err != nil {
		return routeOutput{}, inputErr(err)
	}
	docs, targets, err := injectAll(r, docs, log)
	if err != nil {
		return routeOutput{}, err
	}
	if len(targets) != 1 {
		names := make([]string, len(targets))
		for i, t := range targets {
			names[i] = t.Name
		}
		return routeOutput{}, inputErr(fmt.Errorf("%d broker StatefulSets (%s): the values route writes one release's broker values; render one release at a time", len(targets), strings.Join(names, ", ")))
	}
	t := targets[0]
	edit := official.Edit{Name: t.Name, Container: t.Container,
		Before: yamlnode.DocumentRoot(before[t.Index].Node), After: yamlnode.DocumentRoot(docs[t.Index].Node)}
	edit.ConfBefore, edit.Conf = brokerConf(before, t), brokerConf(docs, t)
	values, err := official.Values(edit)
	if err != nil {
		return routeOutput{}, inputErr(err)
	}
	release := t.Labels["release"]
	fmt.Fprintf(log, "%s values: StatefulSet %s: %s\n", prog, t.Name, describeOverlay(values))
	overlay, err := find.Encode(&yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{values}, HeadComment: overlayHeader(release, t.Namespace)})
	if err != nil {
		return routeOutput{}, fmt.Errorf("writing the values: %w", err)
	}
	comp, err := companionValues(r, t, release)
	if err != nil {
		return routeOutput{}, inputErr(err)
	}
	return routeOutput{overlay: []byte(overlay), companion: comp}, nil
}

// describeOverlay names the broker values the overlay restates, and the operator's own init
// containers it keeps (Helm replaces a list whole: they are in it).
func describeOverlay(values *yaml.Node) string {
	broker := yamlnode.MapValue(values, "broker")
	var keys []string
	for i := 0; i+1 < len(broker.Content); i += 2 {
		k := broker.Content[i].Value
		if sub := broker.Content[i+1]; sub.Kind == yaml.MappingNode {
			for j := 0; j+1 < len(sub.Content); j += 2 {
				keys = append(keys, k+"."+sub.Content[j].Value)
			}
			continue
		}
		keys = append(keys, k)
	}
	own := 0
	for _, c := range yamlnode.Items(yamlnode.MapValue(broker, "initContainers")) {
		if yamlnode.NameOf(c) != find.SidecarContainer {
			own++
		}
	}
	return fmt.Sprintf("writes broker values %s (broker.initContainers keeps your %d own); pass it after your values files, and write it again when you change those values",
		strings.Join(keys, ", "), own)
}

// brokerConf is the text of a broker's pinot-broker.conf in docs ("" when not found).
func brokerConf(docs []find.Manifest, t find.Broker) string {
	for _, d := range docs {
		if d.Node != nil && d.Obj.Kind == "ConfigMap" && d.Obj.Metadata.Name == t.ConfigMap.Name && d.Obj.Metadata.Namespace == t.Namespace {
			return yamlnode.Scalar(yamlnode.At(yamlnode.DocumentRoot(d.Node), "data", t.ConfigMap.Key))
		}
	}
	return ""
}

func overlayHeader(release, namespace string) string {
	return fmt.Sprintf(`Written by warmup-inject values for the official Pinot chart's release %q (namespace %q):
the warmup sidecar in the broker pods, through that chart's own values. Pass it last (-f),
after your own values files. It restates the broker values it sets from your rendering
(broker.initContainers, and as asked broker.jvmOpts, extraEnv, resources, probes,
persistence.extraVolumes/extraVolumeMounts, extra.configs): write it again when you change
those, or Helm's later file wins over your change.`, release, namespace)
}

// companionValues are the pinot-broker-warmup chart's values for its install beside the
// release: the PodMonitor's and dashboard's as given, the broker pods' labels with the
// release's, and brokerCpuBoost as the post-renderer would render it for this StatefulSet.
func companionValues(r *render.Renderer, t find.Broker, release string) ([]byte, error) {
	labels := map[string]any{}
	for k, v := range stringMap(chartvalues.Lookup(r.Values(), "brokerPodLabels")) {
		labels[k] = v
	}
	if release != "" {
		labels["release"] = release
	}
	v := map[string]any{
		"enabled":         true,
		"besideRelease":   map[string]any{"name": release, "namespace": t.Namespace, "brokerStatefulSet": t.Name},
		"brokerPodLabels": labels,
	}
	for _, k := range []string{"podMonitor", "dashboard"} {
		if m, ok := r.User()[k]; ok {
			v[k] = m
		}
	}
	if p := chartvalues.Lookup(r.User(), "warmup", "listenPort"); p != nil {
		v["warmup"] = map[string]any{"listenPort": p}
	}
	if boost.On(r.Values()) {
		// The ServiceAccount is the pods' own here (nothing to carry over); injectAll told its note.
		plan, _, err := boost.Plan(r.Values(), t, nil)
		if err != nil {
			return nil, err
		}
		v["brokerCpuBoost"] = chartvalues.Merge(asMap(r.User()["brokerCpuBoost"]), plan)
		v["brokerContainerName"] = t.Container
	}
	var buf bytes.Buffer
	fmt.Fprintf(&buf, "# Written by warmup-inject values: the pinot-broker-warmup chart's values for its install beside\n# the Pinot release %q, in the same namespace (%q).\n", release, t.Namespace)
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("writing the companion values: %w", err)
	}
	return buf.Bytes(), enc.Close()
}

func asMap(v any) map[string]any {
	if m, ok := v.(map[string]any); ok {
		return m
	}
	return map[string]any{}
}
