package main

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/e2e/bench"
	"github.com/warmup-sidecar/warmup-sidecar/e2e/cluster"
)

// steadyCmd measures broker JVM settings long after start, where the study's windows end.
func steadyCmd(ctx context.Context, args []string, stdout, stderr io.Writer, log *slog.Logger) int {
	fs := flag.NewFlagSet("steady", flag.ContinueOnError)
	var (
		m        mixFlags
		modes    jvmModeList
		levels   = intList{4, 16}
		rounds   = fs.Int("rounds", 2, "runs per JVM mode, interleaved")
		rate     = fs.Float64("rate", 0, "open-loop arrivals per second; 0: calibrate on the first broker")
		load     = fs.Duration("load", 4*time.Minute, "open-loop load per run, from the broker's first /health 200")
		slice    = fs.Duration("slice", 30*time.Second, "figures per slice of the load")
		capStep  = fs.Duration("capacity-step", 10*time.Second, "length of each closed-loop capacity step after the load")
		timeout  = fs.Duration("timeout", 2*time.Second, "client timeout")
		basePort = fs.Int("base-port", bench.DefaultBasePort, fmt.Sprintf("first port of the local cluster (it uses %d ports from there)", cluster.PortSpan))
		out      = fs.String("out", "results/coldstart", "directory for <name>.json and <name>.md")
		name     = fs.String("name", "", "output base name (default steady-<mix>)")
		workDir  = fs.String("work-dir", "", "keep the cluster and GC logs here (default: a temp dir, removed)")
	)
	m.register(fs)
	fs.Var(&modes, "jvm-mode", "NAME=OPTION[ OPTION…]: broker JVM options after the chart's (repeatable; NAME= for none)")
	fs.Var(&levels, "capacity-levels", "closed-loop client counts after the load")
	if code, ok := parse(fs, args, stderr); !ok {
		return code
	}
	mix, mixName, err := m.load()
	if err != nil {
		fmt.Fprintln(stderr, "steady:", err)
		return exitBadArgs
	}
	if *name == "" {
		*name = "steady-" + cmp.Or(mixName, "queries")
	}
	sc := bench.SteadyConfig{Modes: modes, Rounds: *rounds, Rate: *rate, Load: *load, Slice: *slice,
		CapacityLevels: levels, CapacityStep: *capStep}
	if err := sc.Check(); err != nil {
		fmt.Fprintln(stderr, "steady:", err)
		return exitBadArgs
	}
	cfg := bench.Config{Mix: mix, MixName: mixName, Timeout: *timeout, BasePort: *basePort,
		WorkDir: *workDir, KeepWorkDir: *workDir != "", Logger: log,
		Command: "coldstart-bench steady " + strings.Join(args, " ")}
	s, err := bench.RunSteady(ctx, cfg, sc, *out, *name)
	if err != nil {
		log.Error("steady study failed", "error", err)
		return exitFailed
	}
	fmt.Fprint(stdout, bench.SteadyMarkdown(s))
	return exitOK
}

// jvmModeList is a repeatable NAME=OPTION[ OPTION…] flag.
type jvmModeList []bench.JVMMode

func (l *jvmModeList) String() string { return "" }

func (l *jvmModeList) Set(v string) error {
	name, opts, ok := strings.Cut(v, "=")
	if !ok || name == "" {
		return fmt.Errorf("%q: want NAME=OPTION[ OPTION…] (e.g. c1=-XX:TieredStopAtLevel=1, or c2= for none)", v)
	}
	*l = append(*l, bench.JVMMode{Name: name, Opts: strings.Fields(opts)})
	return nil
}
