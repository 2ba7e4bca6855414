package inject

import (
	"fmt"
	"io"

	"github.com/warmup-sidecar/warmup-sidecar/internal/inject/chartvalues"
	"github.com/warmup-sidecar/warmup-sidecar/internal/inject/yamlnode"
)

// inject adds the sidecar to every broker StatefulSet in the manifests read from in and writes
// the whole stream to out. Documents it does not change are written back byte for byte.
func inject(r *renderer, in io.Reader, out, log io.Writer) error {
	raw, err := io.ReadAll(in)
	if err != nil {
		return inputErr(fmt.Errorf("reading manifests from stdin: %w", err))
	}
	docs, err := parseStream(raw)
	if err != nil {
		return inputErr(err)
	}
	if !r.enabled() {
		fmt.Fprintln(log, prog+": enabled is false in the values: manifests passed through unchanged")
		_, err := out.Write(raw)
		return err
	}
	docs, _, err = injectAll(r, docs, log)
	if err != nil {
		return err
	}
	for i := range docs {
		if docs[i].changed {
			body, err := encode(docs[i].node)
			if err != nil {
				return fmt.Errorf("writing %s %s: %w", docs[i].obj.Kind, docs[i].obj.Metadata.Name, err)
			}
			docs[i].body = body
		}
	}
	all := make([]document, len(docs))
	for i, d := range docs {
		all[i] = d.document
	}
	_, err = out.Write(joinStream(all))
	return err
}

// injectAll edits the parsed documents in place, and adds the objects the chart renders beside
// the pods (brokerCpuBoost's ServiceAccount, Role, RoleBinding and admission policy) at the end.
// It returns the broker StatefulSets it edited with the documents.
func injectAll(r *renderer, docs []manifest, log io.Writer) ([]manifest, []brokerTarget, error) {
	podLabels := stringMap(chartvalues.Lookup(r.values, "brokerPodLabels"))
	containerName, _ := chartvalues.Lookup(r.values, "brokerContainerName").(string)
	javaOptsEnv, _ := chartvalues.Lookup(r.values, "brokerJvm", "javaOptsEnv").(string)
	brokerURL, _ := chartvalues.Lookup(r.values, "warmup", "brokerUrl").(string)
	var services []service
	configMaps := map[string]int{} // namespace/name -> index
	var targets []brokerTarget
	for i, d := range docs {
		if d.node == nil {
			continue
		}
		switch d.obj.Kind {
		case "Service":
			var s service
			if err := d.node.Decode(&s); err != nil {
				return nil, nil, inputErr(fmt.Errorf("reading Service %s (line %d): %w", d.obj.Metadata.Name, d.line, err))
			}
			services = append(services, s)
		case "ConfigMap":
			configMaps[d.obj.Metadata.Namespace+"/"+d.obj.Metadata.Name] = i
		case "StatefulSet":
			var sts statefulSet
			if err := d.node.Decode(&sts); err != nil {
				return nil, nil, inputErr(fmt.Errorf("reading StatefulSet %s (line %d): %w", d.obj.Metadata.Name, d.line, err))
			}
			match, container := matchBroker(d.obj, sts, podLabels, containerName)
			if match == notBroker {
				continue
			}
			t, err := newBrokerTarget(i, sts, match, container, brokerURL != "")
			if err != nil {
				return nil, nil, inputErr(err)
			}
			targets = append(targets, t)
		}
	}
	if len(targets) == 0 {
		return nil, nil, noBrokerErr(podLabels)
	}
	var objects []boostObjects
	for _, t := range targets {
		warmup := map[string]any{}
		if t.port > 0 {
			warmup["brokerPort"] = t.port
		}
		// The chart renders the sidecar's own readinessProbe by decidedBy: give it the resolved one.
		by, why := brokerDecidedBy(r.values, t)
		overrides := map[string]any{"warmup": warmup, "brokerReadiness": map[string]any{"decidedBy": by}}
		if key, derived := aotCacheKey(r.values, t); derived {
			overrides["brokerJvm"] = map[string]any{"aotCache": map[string]any{"key": key}}
		}
		cpuNote := ""
		if res, note := sidecarCPUOverride(t); res != nil {
			overrides["resources"], cpuNote = res, note
		}
		if cpuBoostOn(r.values) {
			note, err := cpuBoostOverrides(r.values, t, docs, overrides)
			if err != nil {
				return nil, nil, inputErr(err)
			}
			if note != "" {
				fmt.Fprintf(log, prog+": StatefulSet %s: %s\n", t.name, note)
			}
		}
		controller := ""
		if needsController(r.values) {
			controller = controllerURL(services, t)
			if controller != "" {
				warmup["controllerUrl"] = controller
			}
		}
		inj, err := r.render(overrides, t.namespace)
		if err != nil {
			return nil, nil, usageErr(fmt.Errorf("StatefulSet %s: %w", t.name, err))
		}
		d := &docs[t.index]
		if splicePod(yamlnode.DocumentRoot(d.node), inj) {
			d.changed = true
		}
		if inj.brokerConfig != "" {
			if err := addListener(docs, configMaps, t, inj.brokerConfig); err != nil {
				return nil, nil, inputErr(err)
			}
		}
		if addBrokerMounts(yamlnode.DocumentRoot(d.node), t.container, inj.brokerVolumeMounts) {
			d.changed = true
		}
		if inj.brokerJavaOpts != "" {
			changed, err := addJavaOpts(yamlnode.DocumentRoot(d.node), t, javaOptsEnv, inj.brokerJavaOpts, jvmLevers(r.values))
			if err != nil {
				return nil, nil, inputErr(err)
			}
			d.changed = d.changed || changed
		}
		if spliceCPUBoost(yamlnode.DocumentRoot(d.node), t.container, inj) {
			d.changed = true
			objects = append(objects, boostObjects{t.name, inj.cpuBoostObjects})
		}
		fmt.Fprintf(log, prog+": StatefulSet %s: sidecar added (%s%s%s%s%s)\n", t.name, describePort(t.port, brokerURL),
			describeController(controller), describeJavaOpts(javaOptsEnv, inj.brokerJavaOpts), describeBoost(inj), describeMatch(t, podLabels))
		if cpuNote != "" {
			fmt.Fprintf(log, prog+": StatefulSet %s: %s\n", t.name, cpuNote)
		}
		gated, gateNote, err := gateBrokerProbes(yamlnode.DocumentRoot(d.node), t, r.values, by)
		if err != nil {
			return nil, nil, inputErr(err)
		}
		d.changed = d.changed || gated
		if why != "" {
			fmt.Fprintf(log, prog+": StatefulSet %s: brokerReadiness.decidedBy auto: %s (%s)\n", t.name, by, why)
		}
		if gateNote != "" {
			fmt.Fprintf(log, prog+": StatefulSet %s: %s\n", t.name, gateNote)
		}
	}
	for _, o := range objects {
		var err error
		if docs, err = addObjects(docs, o.stream, o.statefulSet); err != nil {
			return nil, nil, err
		}
	}
	return docs, targets, nil
}

// boostObjects are the objects one StatefulSet's boost adds beside its pods (a YAML stream).
type boostObjects struct{ statefulSet, stream string }

// describePort: 0 is a port inject could not tell, which only an explicit brokerUrl allows.
func describePort(port int, brokerURL string) string {
	if port == 0 {
		return "broker query port unknown: the sidecar probes warmup.brokerUrl " + brokerURL
	}
	return fmt.Sprintf("broker port %d", port)
}

// needsController: an enabled sidecar needs a controller URL unless the values name one, or
// name the tables or queries to probe (DESIGN.md, WARMUP_CONTROLLER_URL).
func needsController(values map[string]any) bool {
	if on, _ := chartvalues.Lookup(values, "warmup", "enabled").(bool); !on {
		return false
	}
	for _, k := range []string{"controllerUrl", "tables", "queries"} {
		switch v := chartvalues.Lookup(values, "warmup", k).(type) {
		case string:
			if v != "" {
				return false
			}
		case []any:
			if len(v) > 0 {
				return false
			}
		}
	}
	return true
}

func describeController(url string) string {
	if url == "" {
		return ""
	}
	return ", controller " + url
}

func describeJavaOpts(env, opts string) string {
	if opts == "" {
		return ""
	}
	return ", " + env + " + " + opts
}

// stringMap converts a decoded values map of strings.
func stringMap(v any) map[string]string {
	out := map[string]string{}
	if m, ok := v.(map[string]any); ok {
		for k, val := range m {
			out[k] = fmt.Sprint(val)
		}
	}
	return out
}
