package inject

import (
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	yaml "go.yaml.in/yaml/v3"

	"github.com/warmup-sidecar/warmup-sidecar/internal/inject/find"
)

// The GitOps examples in docs/gitops: an Argo CD Application and a Flux HelmRelease that carry
// the values route's two files inline. Their values are what `warmup-inject values` writes for
// the official chart's default release (regenerate with -update), and the official chart
// rendered with them through the helm CLI (Helm 4) has the sidecar they promise.

var updateExamples = flag.Bool("update", false, "rewrite docs/gitops from warmup-inject values' output")

const gitopsDir = "../../docs/gitops"

// exampleChoices are the operator's choices in the examples: the gate decides. auto, the default,
// resolves to the same on the official chart's broker (no CPU limit); set, it stays so when the
// operator gives the broker a CPU limit.
const exampleChoices = "brokerReadiness:\n  decidedBy: sidecar\n"

const argoExample = `# Argo CD: the official Pinot chart with the warmup sidecar, through the chart's own values.
# The Pinot Application's valuesObject is what this renders, for a release named pinot in
# namespace pinot (your own values stay in valueFiles; valuesObject wins over them):
#   helm template pinot pinot/pinot -n pinot -f your-values.yaml \
#     | warmup-inject values -f warmup-values.yaml --kube-version <cluster version> \
#         --companion warmup-companion.yaml > warmup-pinot-values.yaml
# with warmup-values.yaml:
{{choices}}
# The second Application installs this project's chart beside it with warmup-companion.yaml:
# the PodMonitor and the Grafana dashboard (and brokerCpuBoost's RBAC when it is on).
apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: pinot
  namespace: argocd
spec:
  project: default
  destination:
    server: https://kubernetes.default.svc
    namespace: pinot
  source:
    repoURL: https://raw.githubusercontent.com/apache/pinot/master/helm
    chart: pinot
    targetRevision: 0.3.6-SNAPSHOT # the chart of Pinot 1.5.1
    helm:
      releaseName: pinot
      valueFiles: [] # your own values files
      valuesObject:
{{overlay}}
---
apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: pinot-warmup
  namespace: argocd
spec:
  project: default
  destination:
    server: https://kubernetes.default.svc
    namespace: pinot
  source:
    repoURL: https://github.com/warmup-sidecar/warmup-sidecar
    path: charts/pinot-broker-warmup
    targetRevision: main
    helm:
      releaseName: pinot-warmup
      valuesObject:
{{companion}}
`

const fluxExample = `# Flux: the official Pinot chart with the warmup sidecar, through the chart's own values.
# The pinot HelmRelease's values are what this renders, for a release named pinot in namespace
# pinot (your own values can come first through valuesFrom; inline values win over them):
#   helm template pinot pinot/pinot -n pinot -f your-values.yaml \
#     | warmup-inject values -f warmup-values.yaml --kube-version <cluster version> \
#         --companion warmup-companion.yaml > warmup-pinot-values.yaml
# with warmup-values.yaml:
{{choices}}
# The second HelmRelease installs this project's chart beside it with warmup-companion.yaml:
# the PodMonitor and the Grafana dashboard (and brokerCpuBoost's RBAC when it is on).
apiVersion: source.toolkit.fluxcd.io/v1
kind: HelmRepository
metadata:
  name: pinot
  namespace: pinot
spec:
  url: https://raw.githubusercontent.com/apache/pinot/master/helm
  interval: 1h
---
apiVersion: source.toolkit.fluxcd.io/v1
kind: GitRepository
metadata:
  name: warmup-sidecar
  namespace: pinot
spec:
  url: https://github.com/warmup-sidecar/warmup-sidecar
  ref:
    branch: main
  interval: 1h
---
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: pinot
  namespace: pinot
spec:
  interval: 10m
  releaseName: pinot
  chart:
    spec:
      chart: pinot
      version: 0.3.6-SNAPSHOT # the chart of Pinot 1.5.1
      sourceRef:
        kind: HelmRepository
        name: pinot
  values:
{{overlay4}}
---
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: pinot-warmup
  namespace: pinot
spec:
  interval: 10m
  releaseName: pinot-warmup
  dependsOn:
    - name: pinot
  chart:
    spec:
      chart: ./charts/pinot-broker-warmup
      sourceRef:
        kind: GitRepository
        name: warmup-sidecar
  values:
{{companion4}}
`

// indentValues indents a values file as a nested mapping, dropping its comment lines.
func indentValues(text, prefix string) string {
	var out []string
	for _, l := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "#") && !strings.HasPrefix(l, " ") || strings.TrimSpace(l) == "" {
			continue
		}
		out = append(out, prefix+l)
	}
	return strings.Join(out, "\n")
}

func commented(text string) string {
	var out []string
	for _, l := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		out = append(out, "#   "+l)
	}
	return strings.Join(out, "\n")
}

// gitopsExamples renders the two example files from the values route's output.
func gitopsExamples(t *testing.T) map[string]string {
	t.Helper()
	overlay, companion := runValuesRoute(t, renderOfficial(t), exampleChoices)
	fill := func(tmpl string) string {
		return strings.NewReplacer(
			"{{choices}}", commented(exampleChoices),
			"{{overlay}}", indentValues(overlay, "        "),
			"{{companion}}", indentValues(companion, "        "),
			"{{overlay4}}", indentValues(overlay, "    "),
			"{{companion4}}", indentValues(companion, "    "),
		).Replace(tmpl)
	}
	return map[string]string{"argocd.yaml": fill(argoExample), "flux.yaml": fill(fluxExample)}
}

func TestGitOpsExamplesAreTheValuesRoute(t *testing.T) {
	for name, want := range gitopsExamples(t) {
		path := filepath.Join(gitopsDir, name)
		if *updateExamples {
			if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != want {
			t.Errorf("%s is not what warmup-inject values writes today: go test ./internal/inject -run GitOps -update", path)
		}
	}
}

// exampleValues takes each release's values out of an example: the official chart's and the
// companion's, by the release name the example gives.
func exampleValues(t *testing.T, name string) map[string]map[string]any {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(gitopsDir, name))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]map[string]any{}
	for _, o := range objects(t, string(b)) {
		switch o.get("kind") {
		case "Application":
			rel, _ := o.get("spec", "source", "helm", "releaseName").(string)
			v, _ := o.get("spec", "source", "helm", "valuesObject").(map[string]any)
			out[rel] = v
		case "HelmRelease":
			rel, _ := o.get("spec", "releaseName").(string)
			v, _ := o.get("spec", "values").(map[string]any)
			out[rel] = v
		}
	}
	return out
}

// helm4 is a Helm 4 CLI on PATH; WARMUP_REQUIRE_HELM4=1 (make packaging) makes its absence a failure.
func helm4(t *testing.T) string {
	t.Helper()
	path, err := exec.LookPath("helm")
	if err == nil {
		if out, err := exec.Command(path, "version", "--template", "{{.Version}}").Output(); err == nil && strings.HasPrefix(string(out), "v4.") {
			return path
		}
	}
	if os.Getenv("WARMUP_REQUIRE_HELM4") != "" {
		t.Fatal("WARMUP_REQUIRE_HELM4 is set but no Helm 4 `helm` is on PATH (scripts/install-tools.sh installs it)")
	}
	t.Skip("no Helm 4 on PATH: the examples are rendered through Helm's library in TestValuesRouteRendersWhatInjectDoes; make packaging runs this with Helm 4")
	return ""
}

// TestGitOpsExamplesRenderThroughHelm4: each example's values, given to the helm CLI with the
// official chart's .tgz and this project's chart, render what the example says.
func TestGitOpsExamplesRenderThroughHelm4(t *testing.T) {
	helm := helm4(t)
	for _, name := range []string{"argocd.yaml", "flux.yaml"} {
		t.Run(name, func(t *testing.T) {
			values := exampleValues(t, name)
			if len(values["pinot"]) == 0 || len(values["pinot-warmup"]) == 0 {
				t.Fatalf("the example gives no values for the releases pinot and pinot-warmup: %v", values)
			}
			render := func(release, chart string, v map[string]any) []k8sObject {
				b, err := yaml.Marshal(v)
				if err != nil {
					t.Fatal(err)
				}
				out, err := exec.Command(helm, "template", release, chart, "--namespace", "pinot", "--kube-version", "1.34.0",
					"--values", writeValues(t, string(b))).Output()
				if err != nil {
					t.Fatalf("helm template %s: %v\n%s", chart, err, stderrOf(err))
				}
				return objects(t, string(out))
			}
			brokers := officialBrokers(render("pinot", officialTgz, values["pinot"]))
			if len(brokers) != 1 {
				t.Fatalf("%d broker StatefulSets", len(brokers))
			}
			sidecar := containerNamed(brokers[0], "initContainers", find.SidecarContainer)
			if sidecar == nil || sidecar["restartPolicy"] != "Always" {
				t.Fatalf("no native sidecar %q in the broker pod's initContainers: %v", find.SidecarContainer, sidecar)
			}
			if path, _ := k8sObject(sidecar).get("readinessProbe", "httpGet", "path").(string); path != "/readyz" {
				t.Errorf("the sidecar's readinessProbe asks %q, want /readyz", path)
			}
			probe, _ := k8sObject(containerNamed(brokers[0], "containers", find.OfficialBrokerContainer)).get("readinessProbe").(map[string]any)
			// The gate decides (exampleChoices): the broker's /health probe starts at once, every second.
			if probe["initialDelaySeconds"] != 1 || probe["periodSeconds"] != 1 || k8sObject(probe).get("httpGet", "path") != "/health" {
				t.Errorf("the broker's readinessProbe is %v, want /health from 1 s, every 1 s", probe)
			}
			kinds := map[string]bool{}
			for _, o := range render("pinot-warmup", chartDir, values["pinot-warmup"]) {
				kinds[o.get("kind").(string)] = true
			}
			if !kinds["PodMonitor"] || !kinds["ConfigMap"] {
				t.Errorf("the companion release renders %v, want the PodMonitor and the dashboard ConfigMap", kinds)
			}
		})
	}
}
