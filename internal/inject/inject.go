package inject

import (
	"fmt"
	"io"

	"github.com/warmup-sidecar/warmup-sidecar/internal/inject/boost"
	"github.com/warmup-sidecar/warmup-sidecar/internal/inject/chartvalues"
	"github.com/warmup-sidecar/warmup-sidecar/internal/inject/edit"
	"github.com/warmup-sidecar/warmup-sidecar/internal/inject/find"
	"github.com/warmup-sidecar/warmup-sidecar/internal/inject/render"
	"github.com/warmup-sidecar/warmup-sidecar/internal/inject/yamlnode"
)

// inject adds the sidecar to every broker StatefulSet in the manifests read from in and writes
// the whole stream to out. Documents it does not change are written back byte for byte.
func inject(r *render.Renderer, in io.Reader, out, log io.Writer) error {
	raw, err := io.ReadAll(in)
	if err != nil {
		return inputErr(fmt.Errorf("reading manifests from stdin: %w", err))
	}
	docs, err := find.ParseStream(raw)
	if err != nil {
		return inputErr(err)
	}
	if !r.Enabled() {
		fmt.Fprintln(log, prog+": enabled is false in the values: manifests passed through unchanged")
		_, err := out.Write(raw)
		return err
	}
	docs, _, err = injectAll(r, docs, log)
	if err != nil {
		return err
	}
	for i := range docs {
		if docs[i].Changed {
			body, err := find.Encode(docs[i].Node)
			if err != nil {
				return fmt.Errorf("writing %s %s: %w", docs[i].Obj.Kind, docs[i].Obj.Metadata.Name, err)
			}
			docs[i].Body = body
		}
	}
	all := make([]find.Document, len(docs))
	for i, d := range docs {
		all[i] = d.Document
	}
	_, err = out.Write(find.JoinStream(all))
	return err
}

// injectAll edits the parsed documents in place, and adds the objects the chart renders beside
// the pods (brokerCpuBoost's ServiceAccount, Role, RoleBinding and admission policy) at the end.
// It returns the broker StatefulSets it edited with the documents.
func injectAll(r *render.Renderer, docs []find.Manifest, log io.Writer) ([]find.Manifest, []find.Broker, error) {
	podLabels := stringMap(chartvalues.Lookup(r.Values(), "brokerPodLabels"))
	containerName, _ := chartvalues.Lookup(r.Values(), "brokerContainerName").(string)
	javaOptsEnv, _ := chartvalues.Lookup(r.Values(), "brokerJvm", "javaOptsEnv").(string)
	brokerURL, _ := chartvalues.Lookup(r.Values(), "warmup", "brokerUrl").(string)
	found, err := find.Brokers(docs, podLabels, containerName, brokerURL != "")
	if err != nil {
		return nil, nil, inputErr(err)
	}
	targets := found.Brokers
	var objects []boostObjects
	for _, t := range targets {
		warmup := map[string]any{}
		if t.Port > 0 {
			warmup["brokerPort"] = t.Port
		}
		// The chart renders the sidecar's own readinessProbe by decidedBy: give it the resolved one.
		by, why := edit.BrokerDecidedBy(r.Values(), t, boost.On(r.Values()))
		overrides := map[string]any{"warmup": warmup, "brokerReadiness": map[string]any{"decidedBy": by}}
		if key, derived := edit.AOTCacheKey(r.Values(), t); derived {
			overrides["brokerJvm"] = map[string]any{"aotCache": map[string]any{"key": key}}
		}
		cpuNote := ""
		if res, note := edit.SidecarCPUOverride(t); res != nil {
			overrides["resources"], cpuNote = res, note
		}
		if boost.On(r.Values()) {
			note, err := boost.Overrides(r.Values(), t, docs, overrides)
			if err != nil {
				return nil, nil, inputErr(err)
			}
			if note != "" {
				fmt.Fprintf(log, prog+": StatefulSet %s: %s\n", t.Name, note)
			}
		}
		controller := ""
		if needsController(r.Values()) {
			controller = found.ControllerURL(t)
			if controller != "" {
				warmup["controllerUrl"] = controller
			}
		}
		inj, err := renderFor(r, overrides, t.Namespace)
		if err != nil {
			return nil, nil, usageErr(fmt.Errorf("StatefulSet %s: %w", t.Name, err))
		}
		d := &docs[t.Index]
		if edit.SplicePod(yamlnode.DocumentRoot(d.Node), inj.containers, inj.initContainers, inj.volumes) {
			d.Changed = true
		}
		if inj.brokerConfig != "" {
			if err := edit.AddListener(docs, found.ConfigMaps, t, inj.brokerConfig); err != nil {
				return nil, nil, inputErr(err)
			}
		}
		if edit.AddBrokerMounts(yamlnode.DocumentRoot(d.Node), t.Container, inj.brokerVolumeMounts) {
			d.Changed = true
		}
		if inj.brokerJavaOpts != "" {
			changed, err := edit.AddJavaOpts(yamlnode.DocumentRoot(d.Node), t, javaOptsEnv, inj.brokerJavaOpts, edit.JVMLevers(r.Values()))
			if err != nil {
				return nil, nil, inputErr(err)
			}
			d.Changed = d.Changed || changed
		}
		if boost.Splice(yamlnode.DocumentRoot(d.Node), t.Container, inj.boost) {
			d.Changed = true
			objects = append(objects, boostObjects{t.Name, inj.boost.Objects})
		}
		fmt.Fprintf(log, prog+": StatefulSet %s: sidecar added (%s%s%s%s%s)\n", t.Name, describePort(t.Port, brokerURL),
			describeController(controller), describeJavaOpts(javaOptsEnv, inj.brokerJavaOpts), boost.Describe(inj.boost), find.DescribeMatch(t, podLabels))
		if cpuNote != "" {
			fmt.Fprintf(log, prog+": StatefulSet %s: %s\n", t.Name, cpuNote)
		}
		gated, gateNote, err := edit.GateBrokerProbes(yamlnode.DocumentRoot(d.Node), t, r.Values(), by)
		if err != nil {
			return nil, nil, inputErr(err)
		}
		d.Changed = d.Changed || gated
		if why != "" {
			fmt.Fprintf(log, prog+": StatefulSet %s: brokerReadiness.decidedBy auto: %s (%s)\n", t.Name, by, why)
		}
		if gateNote != "" {
			fmt.Fprintf(log, prog+": StatefulSet %s: %s\n", t.Name, gateNote)
		}
	}
	for _, o := range objects {
		var err error
		if docs, err = boost.AddObjects(docs, o.stream, o.statefulSet); err != nil {
			return nil, nil, inputErr(err)
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
