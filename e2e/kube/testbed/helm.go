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

// Helm runs the real helm CLI (scripts/install-tools.sh builds it) against the test bed, with
// this tree's warmup-inject as the post-renderer, as an operator runs them.
type Helm struct {
	Bin, Kubeconfig string
	Inject          string // warmup-inject binary
	// Chart is the official Pinot chart (the unmodified .tgz).
	Chart string
}

// NewHelm finds Helm 3 (helm3 of scripts/install-tools.sh: it runs warmup-inject from PATH as an
// exec post-renderer, which Helm 4 no longer does), builds warmup-inject into dir and locates the
// official chart fixture.
func NewHelm(ctx context.Context, kubeconfig, dir string) (*Helm, error) {
	root, err := cluster.RepoRoot()
	if err != nil {
		return nil, err
	}
	bin, err := cluster.RunInstall(ctx, nil, "install-tools.sh")
	if err != nil {
		return nil, err
	}
	h := &Helm{Bin: filepath.Join(bin, "helm3"), Kubeconfig: kubeconfig,
		Inject: filepath.Join(dir, "warmup-inject"),
		Chart:  filepath.Join(root, "testdata", "pinot-helm", "pinot-chart-release-1.5.1.tgz")}
	if c := os.Getenv("WARMUP_PINOT_CHART"); c != "" {
		h.Chart = c
	}
	if _, err := os.Stat(h.Chart); err != nil {
		return nil, fmt.Errorf("the official Pinot chart (WARMUP_PINOT_CHART or testdata/pinot-helm): %w", err)
	}
	build := exec.CommandContext(ctx, "go", "build", "-o", h.Inject, "./cmd/warmup-inject")
	build.Dir = root
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if b, err := build.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("build warmup-inject: %w\n%s", err, b)
	}
	return h, nil
}

// Run runs helm with args and the test bed's kubeconfig; the error carries helm's output.
func (h *Helm) Run(ctx context.Context, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, h.Bin, append([]string{"--kubeconfig", h.Kubeconfig}, args...)...)
	// The post-renderer is found on PATH, as the README tells operators to install it.
	cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(h.Inject)+":"+os.Getenv("PATH"))
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	if err != nil {
		return out.String(), fmt.Errorf("helm %s: %w\n%s", strings.Join(args, " "), err, out.String())
	}
	return out.String(), nil
}

// Release is what an install or upgrade applies.
type Release struct {
	Name, Namespace string
	// Values are files for the official chart (-f, in order); Set are --set pairs.
	Values []string
	Set    []string
	// Inject, when set, runs warmup-inject as the post-renderer with these values files.
	Inject       bool
	InjectValues []string
	InjectArgs   []string // more warmup-inject flags (--kube-version …)
	Wait         bool     // helm --wait (the StatefulSet's pods Ready, by the real controllers)
	Timeout      string   // helm --timeout, default 5m
}

func (r Release) args() []string {
	a := []string{r.Name, "", "-n", r.Namespace}
	for _, v := range r.Values {
		a = append(a, "-f", v)
	}
	for _, s := range r.Set {
		a = append(a, "--set", s)
	}
	if r.Inject {
		a = append(a, "--post-renderer", "warmup-inject")
		for _, v := range r.InjectValues {
			a = append(a, "--post-renderer-args", "--values="+v)
		}
		for _, x := range r.InjectArgs {
			a = append(a, "--post-renderer-args", x)
		}
	}
	if r.Wait {
		t := r.Timeout
		if t == "" {
			t = "5m"
		}
		a = append(a, "--wait", "--timeout", t)
	}
	return a
}

// Install is `helm install` of the official chart.
func (h *Helm) Install(ctx context.Context, r Release) (string, error) {
	a := r.args()
	a[1] = h.Chart
	return h.Run(ctx, append([]string{"install", "--create-namespace"}, a...)...)
}

// Upgrade is `helm upgrade` of the official chart (values are not reused: each upgrade says them all).
func (h *Helm) Upgrade(ctx context.Context, r Release) (string, error) {
	a := r.args()
	a[1] = h.Chart
	return h.Run(ctx, append([]string{"upgrade"}, a...)...)
}

// Uninstall is `helm uninstall --wait`.
func (h *Helm) Uninstall(ctx context.Context, name, namespace string) (string, error) {
	return h.Run(ctx, "uninstall", name, "-n", namespace, "--wait", "--timeout", "5m")
}
