// Command warmup-sidecar keeps a Pinot broker's pod out of service until the
// broker's serve path is warm. See README.md.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// Exit codes.
const (
	exitOK        = 0
	exitNotWarm   = 1 // once: the broker did not reach the floor
	exitBadConfig = 2
	exitStartup   = 3 // the sidecar itself could not start or its server failed
)

// version is stamped at build time: -ldflags "-X main.version=...".
var version = "dev"

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

func run(args []string, stdout, stderr io.Writer) int {
	cmd := "serve"
	if len(args) > 0 && args[0] != "" && args[0][0] != '-' {
		cmd, args = args[0], args[1:]
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	switch cmd {
	case "serve":
		return serve(ctx, args, stderr)
	case "once":
		return once(ctx, args, stderr)
	case "plan":
		return plan(ctx, args, stdout, stderr)
	case "inject":
		// The post-renderer runs on an operator's machine, not in the pod: say where it went
		// rather than "unknown subcommand" to a helm command line written for the old place.
		fmt.Fprint(stderr, injectMoved)
		return exitBadConfig
	case "version":
		fmt.Fprintln(stdout, "warmup-sidecar", version)
		return exitOK
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return exitOK
	}
	fmt.Fprintf(stderr, "unknown subcommand %q: expected serve, once, plan or version\n", cmd)
	return exitBadConfig
}

const usage = `warmup-sidecar: hold a Pinot broker's pod out of service until its serve path is warm.

Usage:
  warmup-sidecar [serve] [-drain D] run beside the broker; serves /readyz /livez /status /metrics;
                                    on SIGTERM /readyz answers 503 for D (default 5s), then exit 0
  warmup-sidecar once [-wait D]     one warmup; exit 0 warm, 1 not warm, 2 bad configuration
  warmup-sidecar plan [-json]       print the tables, legs, coverage and queries; sends no probe,
                                    only the engine's detection query and a sample per leg
  warmup-sidecar version

Configuration comes from WARMUP_* environment variables (see docs/configuration.md).
Exit codes: 0 ok, 1 not warm (once), 2 bad configuration, 3 the sidecar could
not start or its server failed (e.g. the listen address is in use).
The Helm post-renderer is a separate command, warmup-inject.
`

const injectMoved = `warmup-sidecar: the Helm post-renderer is its own command, warmup-inject:
  go install github.com/warmup-sidecar/warmup-sidecar/cmd/warmup-inject@latest
  helm install ... --post-renderer warmup-inject --post-renderer-args --values=warmup-values.yaml
`
