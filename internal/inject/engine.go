package inject

import (
	"errors"
	"fmt"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"text/template"

	"github.com/Masterminds/sprig/v3"
	"helm.sh/helm/v3/pkg/chart"
	"sigs.k8s.io/yaml"
)

// A light port of Helm's template engine (helm.sh/helm/v3 v3.22.0 pkg/engine, Apache License
// 2.0): Go's text/template with missingkey=zero, Sprig (Helm's function library, minus env and
// expandenv) and the Helm functions the chart's helper templates call: include, fail and
// toYaml. pkg/engine and pkg/chartutil import client-go (the lookup function, and the
// Kubernetes scheme behind chartutil.Capabilities), which would make the sidecar binary four
// times larger and slow every sidecar start with client-go's init work; the chart loader
// (pkg/chart/loader) is light and stays.
//
// Only what this chart's templates use is ported. A template that calls another Helm function
// (tpl, required, toJson, lookup, ...) fails to parse ("function ... not defined"), and one that
// reads .Files, .Capabilities.APIVersions or .Capabilities.HelmVersion fails to execute: a
// chart change cannot silently render differently. The tests render every values variant with
// this engine and with Helm's and require byte-identical output.

// recursionMaxNums is Helm's limit on nested includes of one template.
const recursionMaxNums = 1000

const (
	warnStartDelim = "HELM_ERR_START"
	warnEndDelim   = "HELM_ERR_END"
)

var warnRegex = regexp.MustCompile(warnStartDelim + `((?s).*)` + warnEndDelim)

func warnWrap(warn string) string { return warnStartDelim + warn + warnEndDelim }

// capabilities is the part of chartutil.Capabilities the chart reads: .Capabilities.KubeVersion.
type capabilities struct {
	KubeVersion kubeVersion
}

// kubeVersion is chartutil.KubeVersion.
type kubeVersion struct {
	Version string // e.g. v1.29.0
	Major   string
	Minor   string
}

func (kv *kubeVersion) String() string     { return kv.Version }
func (kv *kubeVersion) GitVersion() string { return kv.Version }

// versionMatchRE is k8s.io/apimachinery/pkg/util/version's: numeric fields, then anything.
var versionMatchRE = regexp.MustCompile(`^\s*v?([0-9]+(?:\.[0-9]+)*)(.*)*$`)

// parseKubeVersion is chartutil.ParseKubeVersion (apimachinery's ParseGeneric: two or more
// numeric fields, the first without leading zeroes; anything after them is dropped).
func parseKubeVersion(s string) (*kubeVersion, error) {
	parts := versionMatchRE.FindStringSubmatch(s)
	if parts == nil {
		return nil, fmt.Errorf("could not parse %q as version", s)
	}
	fields := strings.Split(parts[1], ".")
	if len(fields) < 2 {
		return nil, fmt.Errorf("illegal version string %q", s)
	}
	nums := make([]string, len(fields))
	for i, f := range fields {
		if i == 0 && strings.HasPrefix(f, "0") && f != "0" {
			return nil, fmt.Errorf("illegal zero-prefixed version component %q in %q", f, s)
		}
		n, err := strconv.ParseUint(f, 10, 0)
		if err != nil {
			return nil, fmt.Errorf("illegal non-numeric version component %q in %q: %v", f, s, err)
		}
		nums[i] = strconv.FormatUint(n, 10)
	}
	return &kubeVersion{Version: "v" + strings.Join(nums, "."), Major: nums[0], Minor: nums[1]}, nil
}

// releaseInfo is .Release as `helm template` sets it (chartutil.ToRenderValues).
func releaseInfo(name, namespace string) map[string]any {
	return map[string]any{
		"Name":      name,
		"Namespace": namespace,
		"IsUpgrade": false,
		"IsInstall": true,
		"Revision":  1,
		"Service":   "Helm",
	}
}

// funcMap is engine.funcMap as far as this chart needs it; include and fail are bound per
// render by bindFuncs.
func funcMap() template.FuncMap {
	f := sprig.TxtFuncMap()
	delete(f, "env")
	delete(f, "expandenv")
	f["toYaml"] = toYAML
	f["include"] = func(string, any) string { return "not implemented" }
	f["fail"] = func(msg string) (string, error) { return "", errors.New(warnWrap(msg)) }
	// Helm renders without DNS lookups unless --enable-dns.
	f["getHostByName"] = func(string) string { return "" }
	return f
}

// toYAML is Helm's toYaml: sigs.k8s.io/yaml (keys sorted, via JSON), without the final
// newline; an unmarshalable value gives "".
func toYAML(v any) string {
	data, err := yaml.Marshal(v)
	if err != nil {
		return ""
	}
	return strings.TrimSuffix(string(data), "\n")
}

// includeFun is Helm's include: it executes a named template into a string, with Helm's limit
// on recursion.
func includeFun(t *template.Template, includedNames map[string]int) func(string, any) (string, error) {
	return func(name string, data any) (string, error) {
		var buf strings.Builder
		if v, ok := includedNames[name]; ok {
			if v > recursionMaxNums {
				return "", fmt.Errorf("rendering template has a nested reference name: %s: %w", name, errors.New("unable to execute template"))
			}
			includedNames[name]++
		} else {
			includedNames[name] = 1
		}
		err := t.ExecuteTemplate(&buf, name, data)
		includedNames[name]--
		return buf.String(), err
	}
}

// chartEngine holds a chart's templates, parsed once.
type chartEngine struct {
	chart *chart.Chart
	tpl   *template.Template
	names []string // template names (chart/templates/file), in Helm's parse order
}

// newChartEngine parses the chart's templates the way Engine.render does: one template set,
// each file under "<chart>/<path>", files with fewer path segments first.
func newChartEngine(c *chart.Chart) (*chartEngine, error) {
	t := template.New("gotpl")
	t.Option("missingkey=zero")
	t.Funcs(funcMap())
	files := map[string]string{}
	for _, f := range c.Templates {
		if f != nil {
			files[path.Join(c.ChartFullPath(), f.Name)] = string(f.Data)
		}
	}
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Sort(sort.Reverse(byPathLen(names)))
	for _, name := range names {
		if _, err := t.New(name).Parse(files[name]); err != nil {
			return nil, cleanupParseError(name, err)
		}
	}
	return &chartEngine{chart: c, tpl: t, names: names}, nil
}

// render executes every template that is not a partial ("_" prefix) with the chart's top-level
// objects, and returns the output by template name, "<no value>" removed as Helm does.
func (e *chartEngine) render(values map[string]any, release map[string]any, caps *capabilities) (rendered map[string]string, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("rendering template failed: %v", r)
		}
	}()
	t, err := e.tpl.Clone()
	if err != nil {
		return nil, fmt.Errorf("cannot clone template: %w", err)
	}
	t.Funcs(template.FuncMap{"include": includeFun(t, map[string]int{})})

	top := map[string]any{
		"Chart": struct {
			chart.Metadata
			IsRoot bool
		}{*e.chart.Metadata, e.chart.IsRoot()},
		"Release":      release,
		"Capabilities": caps,
		"Values":       values,
		"Subcharts":    map[string]any{},
	}
	basePath := path.Join(e.chart.ChartFullPath(), "templates")
	rendered = make(map[string]string, len(e.names))
	for _, name := range e.names {
		if strings.HasPrefix(path.Base(name), "_") {
			continue
		}
		top["Template"] = map[string]any{"Name": name, "BasePath": basePath}
		var buf strings.Builder
		if err := t.ExecuteTemplate(&buf, name, top); err != nil {
			return nil, cleanupExecError(name, err)
		}
		rendered[name] = strings.ReplaceAll(buf.String(), "<no value>", "")
	}
	return rendered, nil
}

func cleanupParseError(filename string, err error) error {
	tokens := strings.Split(err.Error(), ": ")
	if len(tokens) == 1 {
		return fmt.Errorf("parse error in (%s): %s", filename, err)
	}
	location := tokens[1]
	errMsg := tokens[len(tokens)-1]
	return fmt.Errorf("parse error at (%s): %s", location, errMsg)
}

func cleanupExecError(filename string, err error) error {
	if _, isExecError := err.(template.ExecError); !isExecError {
		return err
	}
	tokens := strings.SplitN(err.Error(), ": ", 3)
	if len(tokens) != 3 {
		return fmt.Errorf("execution error in (%s): %s", filename, err)
	}
	location := tokens[1]
	if parts := warnRegex.FindStringSubmatch(tokens[2]); len(parts) >= 2 {
		return fmt.Errorf("execution error at (%s): %s", location, parts[1])
	}
	return err
}

// byPathLen is Helm's template order: fewer "/" first, then by name.
type byPathLen []string

func (p byPathLen) Len() int      { return len(p) }
func (p byPathLen) Swap(i, j int) { p[j], p[i] = p[i], p[j] }
func (p byPathLen) Less(i, j int) bool {
	a, b := p[i], p[j]
	ca, cb := strings.Count(a, "/"), strings.Count(b, "/")
	if ca == cb {
		return strings.Compare(a, b) == -1
	}
	return ca < cb
}
