// Command coldstart-bench measures a Pinot broker's cold start under open-loop load:
// the cancellation storm after a restart, with and without the warmup sidecar.
//
//	coldstart-bench run --broker URL --rate QPS [--ready-url URL] ...   one arm, any broker
//	coldstart-bench study [--smoke] [--mix M] ...                       the interleaved study on the local cluster
//	coldstart-bench calibrate (--broker URL | --local) ...              warm capacity → arrival rate
//	coldstart-bench steady --jvm-mode NAME=OPTS ...                     broker JVM settings long after start
//	coldstart-bench report --study F.json [--traces DIR]                re-render a study's table and plot
//	coldstart-bench rollout [--smoke] [--arms A,B] ...                  rolling restarts of the chart's brokers on the Kubernetes test bed
//
// See docs/studies/README.md and results/coldstart/README.md.
package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
)

const (
	exitOK      = 0
	exitFailed  = 1 // the run failed, or the smoke checks did
	exitBadArgs = 2
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return exitBadArgs
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	switch args[0] {
	case "run":
		return runCmd(ctx, args[1:], stdout, stderr, log)
	case "study":
		return studyCmd(ctx, args[1:], stdout, stderr, log)
	case "calibrate":
		return calibrateCmd(ctx, args[1:], stdout, stderr, log)
	case "steady":
		return steadyCmd(ctx, args[1:], stdout, stderr, log)
	case "report":
		return reportCmd(ctx, args[1:], stdout, stderr, log)
	case "rollout":
		return rolloutCmd(ctx, args[1:], stdout, stderr, log)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return exitOK
	}
	fmt.Fprintf(stderr, "unknown command %q: expected run, study, calibrate, steady, report or rollout\n\n%s", args[0], usage)
	return exitBadArgs
}

const usage = `coldstart-bench: a Pinot broker's cold start under open-loop load.

Usage:
  coldstart-bench run --broker URL --rate QPS [flags]   measure one arm against any broker: wait for
                                                         --ready-url to answer 200, then load it
  coldstart-bench study [--smoke] [--mix M] [flags]     the interleaved OFF / ON study on a local real
                                                         cluster (e2e/cluster); writes results/coldstart/
                                                         (mixes: builtin, dashboard, api, mse, reduce)
  coldstart-bench calibrate (--broker URL | --local)    a warm broker's closed-loop capacity and the
                                                         arrival rate the study would use
  coldstart-bench steady --jvm-mode NAME=OPTS [flags]   broker JVM settings minutes after start: open-loop
                                                         load, CPU per thread kind, then closed-loop capacity
  coldstart-bench report [--study F] [--traces DIR]     re-render a study's table (and plot, from its traces)
  coldstart-bench rollout [--smoke] [--arms A,B]        rolling restarts (helm upgrade) of the official chart's
                                                         brokers on the Kubernetes test bed (docs/testbed.md),
                                                         their Service a real HAProxy; arms off, off_fast,
                                                         lb_slowstart, on_default, on_fast (on_slowstart, on_c1
                                                         on request); writes results/rollout/

Run "coldstart-bench COMMAND -h" for a command's flags.
`
