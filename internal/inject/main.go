// Package inject is the warmup-inject command, a Helm post-renderer: it reads manifests on
// stdin, adds the warmup sidecar to every Pinot broker StatefulSet and writes them to stdout.
// The container comes from rendering the chart embedded in the binary (charts/pinot-broker-warmup)
// with Helm's own library, so the post-renderer and the chart cannot drift apart. It runs on
// the operator's machine, never in the pod: the sidecar binary does not link it.
//
// This package is the command (its flags, exit codes and log lines, the values route) and the
// wiring of its rooms, each a package by job: internal/inject/find reads the stream and finds the
// brokers in it, internal/inject/render renders the chart with Helm, internal/inject/edit makes
// the sidecar's edits to the broker's pod and config, internal/inject/boost adds brokerCpuBoost,
// and internal/inject/official says an injection in the official chart's values. They share the
// node helpers (internal/inject/yamlnode) and the values lookup (internal/inject/chartvalues).
package inject

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/warmup-sidecar/warmup-sidecar/internal/inject/render"
)

// Exit codes: 0 ok, 1 bad manifest input, 2 bad usage or bad values.
const (
	exitOK    = 0
	exitInput = 1
	exitUsage = 2
)

// prog prefixes every error line.
const prog = "warmup-inject"

const usage = `usage: warmup-inject [--values FILE]... [--kube-version VERSION] < manifests > manifests

Helm post-renderer: adds the warmup sidecar, rendered from the embedded pinot-broker-warmup chart,
to every Pinot broker StatefulSet in the manifests on stdin, and writes all manifests to stdout.
Without --values it injects the chart's defaults (enabled defaults to true here).
--kube-version is the cluster's Kubernetes version, required with nativeSidecar: true and with
brokerCpuBoost.enabled: true.

  helm install pinot pinot/pinot --post-renderer warmup-inject \
    --post-renderer-args --values=warmup-values.yaml
`

type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

func inputErr(err error) error { return &exitError{exitInput, err} }
func usageErr(err error) error { return &exitError{exitUsage, err} }

// valuesFlag collects repeated --values flags, in order.
type valuesFlag []string

func (v *valuesFlag) String() string     { return strings.Join(*v, ",") }
func (v *valuesFlag) Set(s string) error { *v = append(*v, s); return nil }

// Main runs warmup-inject; args are the command line without the program name.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "values" {
		return valuesMain(args[1:], stdin, stdout, stderr)
	}
	// No default: a post-renderer cannot ask the cluster, and a guessed version would pass the
	// native-sidecar and boost checks on any cluster (checkKubeVersion).
	c := newCommand(prog, usage, stderr, "the cluster's Kubernetes `VERSION` (required with nativeSidecar or brokerCpuBoost)")
	if code, done := c.parse(args); done {
		return code
	}
	return c.exit(run(c.values, *c.kubeVersion, stdin, stdout, stderr))
}

// command is what every warmup-inject command shares: its name and usage, the --values files
// and --kube-version, and how an error becomes an exit code.
type command struct {
	name, usage string
	stderr      io.Writer
	fs          *flag.FlagSet
	values      valuesFlag
	kubeVersion *string
}

func newCommand(name, usage string, stderr io.Writer, kubeVersionHelp string) *command {
	c := &command{name: name, usage: usage, stderr: stderr, fs: flag.NewFlagSet(name, flag.ContinueOnError)}
	c.fs.SetOutput(stderr)
	c.fs.Usage = func() { fmt.Fprint(stderr, usage) }
	c.fs.Var(&c.values, "values", "values `FILE` for the pinot-broker-warmup chart (repeatable, later wins)")
	c.fs.Var(&c.values, "f", "shorthand for --values")
	c.kubeVersion = c.fs.String("kube-version", "", kubeVersionHelp)
	return c
}

// parse reads the flags; done with the exit code when the command is over (help, bad usage).
func (c *command) parse(args []string) (code int, done bool) {
	if err := c.fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK, true
		}
		return exitUsage, true
	}
	if c.fs.NArg() > 0 {
		fmt.Fprintf(c.stderr, "%s: unexpected argument %q\n%s", c.name, c.fs.Arg(0), c.usage)
		return exitUsage, true
	}
	return 0, false
}

// exit prints err, if any, and says the exit code it calls for.
func (c *command) exit(err error) int {
	if err == nil {
		return exitOK
	}
	fmt.Fprintf(c.stderr, "%s: %v\n", c.name, err)
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	return exitInput
}

func run(values []string, kubeVersion string, stdin io.Reader, stdout, stderr io.Writer) error {
	r, err := render.New(values, kubeVersion)
	if err != nil {
		return usageErr(err)
	}
	if err := checkKubeVersion(r, kubeVersion); err != nil {
		return usageErr(err)
	}
	return inject(r, stdin, stdout, stderr)
}
