package testbed

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/warmup-sidecar/warmup-sidecar/e2e/cluster"
)

// Helm runs the real helm CLIs (scripts/install-tools.sh builds them) against the test bed, and
// this tree's warmup-inject on each of the routes an operator has (Route), as they run them.
type Helm struct {
	// Bin is Helm 4 (helm), Bin3 Helm 3 (helm3: its exec post-renderer route).
	Bin, Bin3  string
	Kubeconfig string
	Inject     string // warmup-inject binary
	// Chart is the official Pinot chart (the unmodified .tgz); WarmupChart this project's chart,
	// installed beside a release on the values route.
	Chart, WarmupChart string
	// KubeVersion is the API server's version, for warmup-inject (it cannot ask the cluster).
	KubeVersion string
	// Dir holds the values route's files and Helm 4's own home (the plugin lives there).
	Dir string

	plugin bool // Helm 4's plugin installed
}

// NewHelm finds helm and helm3, builds warmup-inject into dir and locates the official chart
// fixture and this project's chart.
func NewHelm(ctx context.Context, kubeconfig, dir string) (*Helm, error) {
	root, err := cluster.RepoRoot()
	if err != nil {
		return nil, err
	}
	bin, err := cluster.RunInstall(ctx, nil, "install-tools.sh")
	if err != nil {
		return nil, err
	}
	h := &Helm{Bin: filepath.Join(bin, "helm"), Bin3: filepath.Join(bin, "helm3"), Kubeconfig: kubeconfig,
		Inject:      filepath.Join(dir, "warmup-inject"),
		Chart:       filepath.Join(root, "testdata", "pinot-helm", "pinot-chart-release-1.5.1.tgz"),
		WarmupChart: filepath.Join(root, "charts", "pinot-broker-warmup"),
		Dir:         filepath.Join(dir, "helm")}
	if c := os.Getenv("WARMUP_PINOT_CHART"); c != "" {
		h.Chart = c
	}
	if _, err := os.Stat(h.Chart); err != nil {
		return nil, fmt.Errorf("the official Pinot chart (WARMUP_PINOT_CHART or testdata/pinot-helm): %w", err)
	}
	if err := os.MkdirAll(h.Dir, 0o755); err != nil {
		return nil, err
	}
	build := exec.CommandContext(ctx, "go", "build", "-o", h.Inject, "./cmd/warmup-inject")
	build.Dir = root
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if b, err := build.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("build warmup-inject: %w\n%s", err, b)
	}
	return h, nil
}

// Run runs Helm 4 with args and the test bed's kubeconfig; the error carries helm's output.
func (h *Helm) Run(ctx context.Context, args ...string) (string, error) {
	return h.run(ctx, h.Bin, nil, args...)
}

// run runs a helm binary in the bed's own Helm home (never the user's: the plugin is installed
// there), warmup-inject on PATH (Helm 3's exec post-renderer finds it there, as the README
// says), stdin when given.
func (h *Helm) run(ctx context.Context, bin string, stdin []byte, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, bin, append([]string{"--kubeconfig", h.Kubeconfig}, args...)...)
	home := filepath.Join(h.Dir, "home")
	cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(h.Inject)+":"+os.Getenv("PATH"),
		"HELM_DATA_HOME="+filepath.Join(home, "data"), "HELM_PLUGINS="+filepath.Join(home, "data", "plugins"),
		"HELM_CONFIG_HOME="+filepath.Join(home, "config"), "HELM_CACHE_HOME="+filepath.Join(home, "cache"))
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return out.String(), fmt.Errorf("%s %s: %w\n%s", filepath.Base(bin), strings.Join(args, " "), err, out.String())
	}
	return out.String(), nil
}

// Route is how a release gets the sidecar.
type Route int

const (
	// NoSidecar: the official chart alone.
	NoSidecar Route = iota
	// ValuesRoute: `warmup-inject values` writes the chart's own values (-f, last) and the
	// companion's, installed first as <name>-warmup from this project's chart (Helm 4).
	ValuesRoute
	// PluginRoute: Helm 4 with warmup-inject as its postrenderer/v1 plugin.
	PluginRoute
	// ExecRoute: Helm 3 with warmup-inject as its exec post-renderer, found on PATH.
	ExecRoute
)

func (r Route) String() string {
	return [...]string{"no sidecar", "values route", "Helm 4 plugin", "Helm 3 exec post-renderer"}[r]
}

// Release is what an install or upgrade applies.
type Release struct {
	Name, Namespace string
	// Values are files for the official chart (-f, in order); Set are --set pairs.
	Values []string
	Set    []string
	// Sidecar is the route; WarmupValues are warmup-inject's values files on it.
	Sidecar      Route
	WarmupValues []string
	Wait         bool   // helm --wait (the StatefulSet's pods Ready, by the real controllers)
	Timeout      string // helm --timeout, default 5m
}

// chartArgs are the release's name, the official chart and its values.
func (r Release) chartArgs(chart string) []string {
	a := []string{r.Name, chart, "-n", r.Namespace}
	for _, v := range r.Values {
		a = append(a, "-f", v)
	}
	for _, s := range r.Set {
		a = append(a, "--set", s)
	}
	return a
}

func (r Release) waitArgs() []string {
	if !r.Wait {
		return nil
	}
	t := r.Timeout
	if t == "" {
		t = "5m"
	}
	return []string{"--wait", "--timeout", t}
}

// postRendererArgs are the flags that run warmup-inject as the post-renderer with the release's
// values (a plugin's name on Helm 4, a program on PATH on Helm 3: the same words).
func (h *Helm) postRendererArgs(r Release) []string {
	a := []string{"--post-renderer", "warmup-inject"}
	for _, v := range r.WarmupValues {
		a = append(a, "--post-renderer-args", "--values="+v)
	}
	return append(a, "--post-renderer-args", "--kube-version="+h.KubeVersion)
}

// Install is `helm install` of the official chart on the release's route.
func (h *Helm) Install(ctx context.Context, r Release) (string, error) {
	return h.apply(ctx, []string{"install", "--create-namespace"}, r)
}

// Upgrade is `helm upgrade` of the official chart on the release's route (values are not
// reused: each upgrade says them all).
func (h *Helm) Upgrade(ctx context.Context, r Release) (string, error) {
	return h.apply(ctx, []string{"upgrade"}, r)
}

// Prepare does what the values route does before the release's own install or upgrade: the two
// values files written and the companion release applied. The release it returns applies the
// official chart with those values (no further route), so that a study can time the upgrade alone.
// Another route's release is returned as it is.
func (h *Helm) Prepare(ctx context.Context, r Release) (Release, error) {
	if r.Sidecar != ValuesRoute {
		return r, nil
	}
	values, err := h.valuesRoute(ctx, r)
	if err != nil {
		return Release{}, err
	}
	r.Values = append(append([]string{}, r.Values...), values)
	r.Sidecar, r.WarmupValues = NoSidecar, nil
	return r, nil
}

func (h *Helm) apply(ctx context.Context, verb []string, r Release) (string, error) {
	r, err := h.Prepare(ctx, r)
	if err != nil {
		return "", err
	}
	bin, args, err := h.postRendered(ctx, r)
	if err != nil {
		return "", err
	}
	return h.run(ctx, bin, nil, append(append(verb, append(r.chartArgs(h.Chart), args...)...), r.waitArgs()...)...)
}

// Template is `helm template` of the official chart on a post-renderer route (or none), with no
// cluster: what Install would apply.
func (h *Helm) Template(ctx context.Context, r Release) (string, error) {
	if r.Sidecar == ValuesRoute {
		return "", fmt.Errorf("Template: the values route installs a companion release; use Install")
	}
	bin, args, err := h.postRendered(ctx, r)
	if err != nil {
		return "", err
	}
	return h.run(ctx, bin, nil, append(append([]string{"template", "--kube-version", h.KubeVersion}, r.chartArgs(h.Chart)...), args...)...)
}

// postRendered is the helm to run for a release's post-renderer route and the flags it adds:
// Helm 4 with the plugin (installed first), Helm 3 with the program; Helm 4 and none otherwise.
func (h *Helm) postRendered(ctx context.Context, r Release) (string, []string, error) {
	switch r.Sidecar {
	case PluginRoute:
		if err := h.installPlugin(ctx); err != nil {
			return "", nil, err
		}
		return h.Bin, h.postRendererArgs(r), nil
	case ExecRoute:
		return h.Bin3, h.postRendererArgs(r), nil
	}
	return h.Bin, nil, nil
}

// CompanionName is the release of this project's chart beside a Pinot release on the values route.
func CompanionName(release string) string { return release + "-warmup" }

// valuesRoute is what the README tells an operator to do: render the release, let warmup-inject
// write the two values files, install this project's chart beside the release with the
// companion's (first: the Role must be there before a pod gives its boost back). It returns the
// official chart's values file. No prometheus-operator runs on the bed: its PodMonitor is off
// unless the release's values turn it on.
func (h *Helm) valuesRoute(ctx context.Context, r Release) (string, error) {
	rendered, err := h.run(ctx, h.Bin, nil, append(append([]string{"template"}, r.chartArgs(h.Chart)...), "--kube-version", h.KubeVersion)...)
	if err != nil {
		return "", err
	}
	bed := filepath.Join(h.Dir, "bed-warmup.yaml")
	if err := os.WriteFile(bed, []byte("podMonitor:\n  enabled: false\n"), 0o644); err != nil {
		return "", err
	}
	values := filepath.Join(h.Dir, r.Name+"-warmup-pinot-values.yaml")
	companion := filepath.Join(h.Dir, r.Name+"-warmup-companion.yaml")
	args := []string{"values", "--values", bed}
	for _, v := range r.WarmupValues {
		args = append(args, "--values", v)
	}
	args = append(args, "--kube-version", h.KubeVersion, "--companion", companion)
	cmd := exec.CommandContext(ctx, h.Inject, args...)
	cmd.Stdin = strings.NewReader(rendered)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("warmup-inject %s: %w\n%s", strings.Join(args, " "), err, stderr.String())
	}
	if err := os.WriteFile(values, stdout.Bytes(), 0o644); err != nil {
		return "", err
	}
	if _, err := h.run(ctx, h.Bin, nil, "upgrade", "--install", CompanionName(r.Name), h.WarmupChart, "-n", r.Namespace,
		"--create-namespace", "-f", companion); err != nil {
		return "", err
	}
	return values, nil
}

// installPlugin installs warmup-inject as Helm 4's post-renderer plugin in the bed's Helm home,
// as `make helm-plugin` and `helm plugin install` do for an operator.
func (h *Helm) installPlugin(ctx context.Context) error {
	if h.plugin {
		return nil
	}
	root, err := cluster.RepoRoot()
	if err != nil {
		return err
	}
	dir := filepath.Join(h.Dir, "plugin", "warmup-inject")
	build := exec.CommandContext(ctx, "bash", "scripts/helm-plugin.sh", dir)
	build.Dir = root
	if b, err := build.CombinedOutput(); err != nil {
		return fmt.Errorf("scripts/helm-plugin.sh: %w\n%s", err, b)
	}
	if _, err := h.Run(ctx, "plugin", "install", dir); err != nil {
		return err
	}
	h.plugin = true
	return nil
}

// Uninstall is `helm uninstall --wait` of a release and of its companion, if any.
func (h *Helm) Uninstall(ctx context.Context, name, namespace string) (string, error) {
	out, err := h.Run(ctx, "uninstall", name, "-n", namespace, "--wait", "--timeout", "5m")
	if err != nil {
		return out, err
	}
	more, err := h.Run(ctx, "uninstall", CompanionName(name), "-n", namespace, "--ignore-not-found", "--wait", "--timeout", "5m")
	return out + more, err
}
