package inject

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	helmchart "helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/engine"
)

// inject renders with a light port of Helm's engine (engine.go, coalesce.go, schema.go) so the
// sidecar binary does not link client-go. Helm's own library stays in the tests: every values
// variant below is rendered both ways, and the rendered text, the coalesced values and the
// error messages must be byte-identical.

// renderCase is one render: values files (later wins, as -f a -f b), the overrides inject adds
// from the manifests, and the Kubernetes version.
type renderCase struct {
	files       []string // values file contents, in order
	overrides   map[string]any
	kubeVersion string
	namespace   string
}

const testController = "http://pinot-controller:9000"

// found is what inject reads from the official chart's manifests.
func found(port int, controller string) map[string]any {
	w := map[string]any{"brokerPort": port}
	if controller != "" {
		w["controllerUrl"] = controller
	}
	return map[string]any{"warmup": w}
}

var renderCases = map[string]renderCase{
	"defaults":                 {files: nil, overrides: found(8099, testController)},
	"defaults empty file":      {files: []string{""}, overrides: found(8199, testController)},
	"defaults comments only":   {files: []string{"# nothing\n"}, overrides: found(8099, testController)},
	"native sidecar":           {files: []string{"nativeSidecar: true\n"}, overrides: found(8099, testController)},
	"native sidecar kube 1.34": {files: []string{"nativeSidecar: true\n"}, overrides: found(8099, testController), kubeVersion: "1.34.2"},
	"native sidecar kube vendor suffix": {
		files: []string{"nativeSidecar: true\n"}, overrides: found(8099, testController), kubeVersion: "v1.30.4-gke.1348000",
	},
	"auth": {files: []string{`
auth:
  existingSecret: pinot-warmup-auth
  key: header.txt
  mountPath: /var/run/secrets/warmup/
`}, overrides: found(8099, testController)},
	"auth default key": {files: []string{"auth: {existingSecret: s}\n"}, overrides: found(8099, testController)},
	"loopback listener": {files: []string{`
loopbackListener:
  enabled: true
  name: probes
  port: 8097
`}, overrides: found(8099, testController)},
	"loopback listener defaults": {files: []string{"loopbackListener: {enabled: true}\n"}, overrides: found(8199, testController)},
	"custom env": {files: []string{`
extraEnv:
  - name: GOMEMLIMIT
    value: 100MiB
  - name: TZ
    value: "Europe/Zürich"
  - name: NOTE
    value: "line one\nline two: with colon, \"quotes\" and 'apostrophes'"
  - name: POD_IP
    valueFrom:
      fieldRef: {fieldPath: status.podIP}
  - name: EMPTY
    value: ""
  - name: NUMBERISH
    value: "0042"
`}, overrides: found(8099, testController)},
	"resources": {files: []string{`
resources:
  requests: {cpu: 0.25, memory: 64Mi, ephemeral-storage: 1Gi}
  limits: {cpu: 1, memory: 256Mi}
`}, overrides: found(8099, testController)},
	"resources empty":  {files: []string{"resources: {}\n"}, overrides: found(8099, testController)},
	"resources claims": {files: []string{"resources:\n  claims: [{name: gpu}]\n"}, overrides: found(8099, testController)},
	"probes and security context": {files: []string{`
readinessProbe: {periodSeconds: 1, failureThreshold: 30}
livenessProbe: {}
securityContext:
  runAsUser: 1000
  privileged: false
`}, overrides: found(8099, testController)},
	"nulls delete defaults": {files: []string{`
readinessProbe: null
livenessProbe: {periodSeconds: null}
resources: {limits: null}
securityContext: {capabilities: null, seccompProfile: {type: null}}
warmup: {tables: null, brokerUrl: null}
image: {digest: null}
`}, overrides: found(8099, testController)},
	"security context and extra env null": {files: []string{"securityContext: null\nextraEnv: null\n"}, overrides: found(8099, testController)},
	"image digest": {files: []string{`
image:
  repository: registry.example.com/mirror/warmup-sidecar
  digest: sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef
  pullPolicy: Always
`}, overrides: found(8099, testController)},
	"tuned, tables, no controller": {files: []string{`
warmup:
  enabled: false
  brokerUrl: https://broker.local:8443/pinot
  budget: 1m30s
  minIterations: 0
  maxTables: 1000
  tables: [airlineStats, baseballStats]
  concurrency: 64
  probeTimeout: 750ms
  failClosed: true
  rearm: false
  listenPort: 65535
  logFormat: text
  logLevel: debug
`}, overrides: found(8099, "")},
	"queries": {files: []string{`
warmup:
  queries:
    - SELECT COUNT(*) FROM airlineStats WHERE Carrier = 'AA'
    - SELECT "DaysSinceEpoch", "ArrDelay" FROM airlineStats LIMIT 10
`}, overrides: found(8099, "")},
	"disabled": {files: []string{"enabled: false\n"}, overrides: found(8099, testController)},
	"later file wins, maps merge, lists replace": {files: []string{`
nativeSidecar: true
warmup: {budget: 1m, concurrency: 4, tables: [a, b]}
extraEnv: [{name: A, value: "1"}]
resources: {requests: {cpu: 100m}}
`, `
warmup: {budget: 2m, tables: [c]}
extraEnv: [{name: B, value: "2"}]
resources: {limits: null}
auth: {existingSecret: s}
`}, overrides: found(8099, "")},
	"override beats values file": {
		files: []string{"warmup: {brokerPort: 1234, controllerUrl: http://mine:9000}\n"}, overrides: found(8199, ""),
	},
	"all together": {files: []string{`
nativeSidecar: true
auth: {existingSecret: pinot-warmup-auth, key: header}
loopbackListener: {enabled: true, port: 8097}
warmup: {tables: [airlineStats], minIterations: 2000, budget: 1m, concurrency: 8}
resources: {requests: {cpu: 100m, memory: 64Mi}}
extraEnv: [{name: GOMEMLIMIT, value: 100MiB}]
`}, overrides: found(8099, "http://pinot-controller.pinot.svc:9000"), namespace: "pinot"},

	// Errors: the chart's fail calls and the schema. The messages must match.
	"fail: no controller":           {files: nil, overrides: found(8099, "")},
	"fail: loopback on broker port": {files: []string{"loopbackListener: {enabled: true, port: 8099}\n"}, overrides: found(8099, testController)},
	"fail: native below 1.29":       {files: []string{"nativeSidecar: true\n"}, overrides: found(8099, testController), kubeVersion: "v1.28.9"},
	"schema: several errors": {files: []string{`
warmup: {concurrency: 65, minIterations: many, budget: 15, logLevel: trace, budgetMs: 1}
extraEnv: [{name: WARMUP_X}]
`}, overrides: found(8099, testController)},
	"schema: bad broker port override": {files: nil, overrides: found(70000, testController)},
	"schema: auth null":                {files: []string{"auth: null\n"}, overrides: found(8099, testController)},
}

// writeValueFiles writes a case's values files; nil for none.
func writeValueFiles(t *testing.T, contents []string) []string {
	t.Helper()
	dir := t.TempDir()
	var files []string
	for i, c := range contents {
		p := filepath.Join(dir, fmt.Sprintf("values-%d.yaml", i))
		if err := os.WriteFile(p, []byte(c), 0o600); err != nil {
			t.Fatal(err)
		}
		files = append(files, p)
	}
	return files
}

// helmRender is what inject rendered before the light engine: Helm's ToRenderValues and
// engine.Render on the same embedded chart, with the values inject passes.
func helmRender(t *testing.T, files []string, tc renderCase) (string, map[string]any, error) {
	t.Helper()
	c, err := loadChart()
	if err != nil {
		t.Fatal(err)
	}
	user := map[string]any{}
	for _, f := range files {
		v, err := chartutil.ReadValuesFile(f)
		if err != nil {
			t.Fatal(err)
		}
		user = mergeMaps(user, v.AsMap())
	}
	if _, set := user["enabled"]; !set {
		user["enabled"] = true
	}
	kv, err := chartutil.ParseKubeVersion(tc.kubeVersion)
	if err != nil {
		t.Fatal(err)
	}
	caps := chartutil.DefaultCapabilities.Copy()
	caps.KubeVersion = *kv
	opts := chartutil.ReleaseOptions{Name: releaseName, Namespace: tc.namespace, Revision: 1, IsInstall: true}
	top, err := chartutil.ToRenderValues(c, mergeMaps(user, tc.overrides), opts, caps)
	if err != nil {
		return "", nil, fmt.Errorf("%s: %w", describeFiles(files), err)
	}
	vals := top["Values"].(chartutil.Values).AsMap()
	out, err := engine.Render(c, top)
	if err != nil {
		return "", vals, fmt.Errorf("rendering the chart with %s: %w", describeFiles(files), err)
	}
	return out[c.Name()+"/"+injectionTemplate], vals, nil
}

func TestLightRendererMatchesHelmLibrary(t *testing.T) {
	names := make([]string, 0, len(renderCases))
	for n := range renderCases {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		tc := renderCases[name]
		if tc.kubeVersion == "" {
			tc.kubeVersion = defaultKubeVersion
		}
		t.Run(name, func(t *testing.T) {
			files := writeValueFiles(t, tc.files)
			want, wantVals, wantErr := helmRender(t, files, tc)

			var got string
			var gotVals map[string]any
			r, err := newRenderer(files, tc.kubeVersion)
			if err == nil {
				gotVals, err = r.coalesce(mergeMaps(r.user, tc.overrides))
				if err == nil {
					got, err = r.renderText(tc.overrides, tc.namespace)
				}
			}
			expectErr := strings.HasPrefix(name, "fail:") || strings.HasPrefix(name, "schema:")
			switch {
			case wantErr != nil || err != nil:
				if !sameError(err, wantErr) {
					t.Fatalf("errors differ\nhelm:  %v\ninject: %v", wantErr, err)
				}
				if !expectErr {
					t.Fatalf("unexpected error: %v", err)
				}
				t.Logf("both: %v", err)
				return
			case expectErr:
				t.Fatal("both rendered; this case is meant to fail")
			}
			if !reflect.DeepEqual(gotVals, wantVals) {
				t.Errorf("coalesced values differ\nhelm:   %#v\ninject: %#v", wantVals, gotVals)
			}
			if got != want {
				t.Errorf("rendered injection differs\n--- helm\n%s\n--- inject\n%s", want, got)
			}
			if got == "" {
				t.Error("nothing rendered")
			}
			// What newRenderer validated up front is Helm's coalescing of the files alone.
			if _, vals, err := helmRender(t, files, renderCase{kubeVersion: tc.kubeVersion}); err == nil && !reflect.DeepEqual(r.values, vals) {
				t.Errorf("up-front values differ\nhelm:   %#v\ninject: %#v", vals, r.values)
			}
		})
	}
}

// sameError compares error texts. The order of several schema errors follows Go's map order in
// the validator (Helm's run to run too), so lines are compared as a set.
func sameError(a, b error) bool {
	if a == nil || b == nil {
		return a == b
	}
	la, lb := strings.Split(a.Error(), "\n"), strings.Split(b.Error(), "\n")
	sort.Strings(la)
	sort.Strings(lb)
	return reflect.DeepEqual(la, lb)
}

// The up-front check (before any manifest is read) fails the same way for bad values files.
func TestLightRendererValuesErrorsMatchHelm(t *testing.T) {
	for _, values := range []string{
		"warmup:\n  concurrency: 65\n",
		"warmup:\n  budget: 0s\n",
		"image: {pullPolicy: Sometimes, digest: latest}\n",
		"loopbackListener: {name: http}\n",
		"brokerContainerName: \"\"\n",
		"podMonitor: {interval: often}\n",
		"warmup: [\n",
	} {
		files := writeValueFiles(t, []string{values})
		_, err := newRenderer(files, defaultKubeVersion)
		var want error
		if v, rerr := chartutil.ReadValuesFile(files[0]); rerr != nil {
			want = fmt.Errorf("reading values file %s: %w", files[0], rerr)
		} else {
			c, err := loadChart()
			if err != nil {
				t.Fatal(err)
			}
			user := v.AsMap()
			user["enabled"] = true
			if _, err := chartutil.ToRenderValues(c, user, chartutil.ReleaseOptions{}, nil); err != nil {
				want = fmt.Errorf("%s: %w", describeFiles(files), err)
			}
		}
		if want == nil || !sameError(err, want) {
			t.Errorf("%q: errors differ\nhelm:   %v\ninject: %v", values, want, err)
		}
	}
}

func TestParseKubeVersionMatchesHelm(t *testing.T) {
	for _, s := range []string{
		"v1.29.0", "1.29.0", "1.29", "v1.30.4-gke.1348000", "1.28.3+k3s1", " v1.31.0 ", "v1.29.0.1",
		"1", "v", "", "not-a-version", "01.29.0", "1.029.0", "1.29.x", "v1.99999999999999999999.0",
	} {
		want, wantErr := chartutil.ParseKubeVersion(s)
		got, err := parseKubeVersion(s)
		if fmt.Sprint(err) != fmt.Sprint(wantErr) {
			t.Errorf("%q: error %v, helm %v", s, err, wantErr)
			continue
		}
		if err == nil && (got.Version != want.Version || got.Major != want.Major || got.Minor != want.Minor) {
			t.Errorf("%q: %+v, helm %+v", s, *got, *want)
		}
	}
}

func TestReadValuesFileMatchesHelm(t *testing.T) {
	for _, content := range []string{
		"", "# c\n", "a: 1\nb: 1.5\nc: [1, x, null]\nd: {e: true, f: ~}\ng: \"2\"\nh: 0x10\ni: 1e3\n",
		"long: 12345678901234567890\nneg: -3\n", "a: [\n",
		// Not a map: the same error, but for the type name (chartutil.Values in Helm's).
		"- a\n",
	} {
		f := writeValueFiles(t, []string{content})[0]
		want, wantErr := chartutil.ReadValuesFile(f)
		got, err := readValuesFile(f)
		if wantErr != nil {
			wantErr = errors.New(strings.ReplaceAll(wantErr.Error(), "chartutil.Values", "map[string]interface {}"))
		}
		if fmt.Sprint(err) != fmt.Sprint(wantErr) {
			t.Errorf("%q: error %v, helm %v", content, err, wantErr)
			continue
		}
		if err == nil && !reflect.DeepEqual(got, want.AsMap()) {
			t.Errorf("%q: %#v, helm %#v", content, got, want.AsMap())
		}
	}
}

func TestCoalesceMatchesHelm(t *testing.T) {
	c, err := loadChart()
	if err != nil {
		t.Fatal(err)
	}
	for _, user := range []map[string]any{
		nil,
		{},
		{"warmup": nil, "extra": nil},
		{"warmup": map[string]any{"budget": nil, "unknown": nil, "tables": []any{"a"}}},
		{"image": "not-a-map", "resources": map[string]any{"limits": map[string]any{"memory": nil}}},
		{"securityContext": map[string]any{"capabilities": map[string]any{"drop": nil, "add": []any{"NET_ADMIN"}}}},
		{"podMonitor": map[string]any{"labels": map[string]any{"release": "x"}, "interval": nil}},
		{"resources": map[string]any{"requests": "1"}},
	} {
		want, err := chartutil.CoalesceValues(c, user)
		if err != nil {
			t.Fatal(err)
		}
		got, err := coalesceValues(c, user)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want.AsMap()) {
			t.Errorf("%v:\n got %#v\nhelm %#v", user, got, want.AsMap())
		}
	}
	// Neither the chart's defaults nor the user's map is modified.
	before := fmt.Sprint(c.Values)
	user := map[string]any{"warmup": map[string]any{"budget": nil}}
	if _, err := coalesceValues(c, user); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(c.Values) != before || user["warmup"].(map[string]any)["budget"] != nil || len(user["warmup"].(map[string]any)) != 1 {
		t.Error("coalesceValues modified its inputs")
	}
}

// Two renders in a row (include's recursion counter, the cloned template set) give the same.
func TestRendererIsReusable(t *testing.T) {
	r, err := newRenderer(nil, defaultKubeVersion)
	if err != nil {
		t.Fatal(err)
	}
	first, err := r.renderText(found(8099, testController), "a")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.renderText(found(8099, ""), "a"); err == nil {
		t.Fatal("no controller must fail")
	}
	again, err := r.renderText(found(8099, testController), "a")
	if err != nil || again != first {
		t.Errorf("second render differs (%v):\n%s\n---\n%s", err, first, again)
	}
}

// The top-level objects as the chart's templates may use them (.Release, .Chart, .Capabilities,
// .Template, a missing value, the _helpers.tpl names), rendered both ways.
func TestTopLevelObjectsMatchHelm(t *testing.T) {
	const probe = `release: {{ .Release.Name }} {{ .Release.Namespace }} {{ .Release.Service }} {{ .Release.IsInstall }} {{ .Release.IsUpgrade }} {{ .Release.Revision }}
chart: {{ .Chart.Name }} {{ .Chart.Version }} {{ .Chart.AppVersion }} {{ .Chart.IsRoot }} {{ .Chart.APIVersion }} {{ .Chart.Type }}
kube: {{ .Capabilities.KubeVersion }} {{ .Capabilities.KubeVersion.Version }} {{ .Capabilities.KubeVersion.Major }} {{ .Capabilities.KubeVersion.Minor }} {{ .Capabilities.KubeVersion.GitVersion }}
template: {{ .Template.Name }} {{ .Template.BasePath }}
missing: [{{ .Values.nope }}] [{{ .Values.warmup.nope }}] [{{ index .Values "nope" }}] [{{ .Subcharts }}]
fullname: {{ include "pinot-broker-warmup.fullname" . }}
labels:
  {{- include "pinot-broker-warmup.labels" . | nindent 2 }}
yaml:
  {{- toYaml .Values | nindent 2 }}
`
	for _, kube := range []string{"v1.29.0", "1.34", "v1.30.4-gke.1348000"} {
		c, err := loadChart()
		if err != nil {
			t.Fatal(err)
		}
		c.Templates = append(c.Templates, &helmchart.File{Name: "templates/probe.yaml", Data: []byte(probe)})
		user := map[string]any{"enabled": true, "warmup": map[string]any{"controllerUrl": testController}}

		kv, err := chartutil.ParseKubeVersion(kube)
		if err != nil {
			t.Fatal(err)
		}
		caps := chartutil.DefaultCapabilities.Copy()
		caps.KubeVersion = *kv
		top, err := chartutil.ToRenderValues(c, user, chartutil.ReleaseOptions{Name: releaseName, Namespace: "pinot", Revision: 1, IsInstall: true}, caps)
		if err != nil {
			t.Fatal(err)
		}
		want, err := engine.Render(c, top)
		if err != nil {
			t.Fatal(err)
		}

		eng, err := newChartEngine(c)
		if err != nil {
			t.Fatal(err)
		}
		vals, err := coalesceValues(c, user)
		if err != nil {
			t.Fatal(err)
		}
		lkv, err := parseKubeVersion(kube)
		if err != nil {
			t.Fatal(err)
		}
		got, err := eng.render(vals, releaseInfo(releaseName, "pinot"), &capabilities{KubeVersion: *lkv})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("kube %s: renders differ\n--- helm\n%v\n--- inject\n%v", kube, want, got)
		}
		if !strings.Contains(got["pinot-broker-warmup/templates/probe.yaml"], "missing: [] [] [] [map[]]") {
			t.Errorf("missing values: %s", got["pinot-broker-warmup/templates/probe.yaml"])
		}
	}
}
