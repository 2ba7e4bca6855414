package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/e2e/bench"
	"github.com/warmup-sidecar/warmup-sidecar/e2e/cluster"
	"github.com/warmup-sidecar/warmup-sidecar/e2e/coldstart"
)

func studyCmd(ctx context.Context, args []string, stdout, stderr io.Writer, log *slog.Logger) int {
	fs := flag.NewFlagSet("study", flag.ContinueOnError)
	var (
		w          windowFlags
		m          mixFlags
		sidecarEnv = envList{}
		armEnv     = armEnvList{}
		armOpts    = armOptList{}
		armJava    = armJavaList{}
		levels     = intList{1, 2, 4, 8, 16, 32}
		fractions  = floatList(coldstart.DefaultFractions)
		smoke      = fs.Bool("smoke", false, "1 restart per arm, short windows and a short calibration: checks the tool works, measures nothing")
		restarts   = fs.Int("restarts", 5, "cold broker restarts per arm")
		arms       = fs.String("arms", strings.Join(coldstart.DefaultArms, ","), "arms, interleaved in every round")
		rate       = fs.Float64("rate", 0, "arrivals per second; 0: calibrate on the warm broker first (see --rate-fractions)")
		calStep    = fs.Duration("calibration-step", 6*time.Second, "length of each closed-loop calibration step")
		settle     = fs.Duration("settle", 5*time.Second, "pause between restarts")
		basePort   = fs.Int("base-port", bench.DefaultBasePort, fmt.Sprintf("first port of the local cluster (it uses %d ports from there)", cluster.PortSpan))
		rows       = fs.Int("bench-rows", 0, "rows of the benchmark table (0: 1,000,000)")
		segments   = fs.Int("bench-segments", 0, "segments of the benchmark table (0: 8)")
		out        = fs.String("out", "results/coldstart", "directory for <name>.json, <name>.md and <name>.png")
		name       = fs.String("name", "", "output base name (default: latest for the builtin mix or a queries file, else the mix's name; smoke[-<mix>] with --smoke)")
		workDir    = fs.String("work-dir", "", "keep the cluster, GC, sidecar logs and per-query traces here (default: a temp dir, removed)")
		baseline   = fs.String("baseline-sidecar", "", "warmup-sidecar binary the on_baseline arm runs with its defaults (another build, for an interleaved A/B of a change)")
		jmxAgent   = fs.Bool("broker-jmx-agent", false, "run every restarted broker with the Prometheus JMX exporter java agent (needed by the on_jit arm)")
		nice       = fs.Int("broker-nice", 0, "run every restarted broker at this nice value (0–19): the servers, ZooKeeper, controller and load generator get the CPU first, as on nodes of their own")
		check      = fs.Bool("check", true, "fail when the output shows the tool did not work (missing restarts, failed loads, no warmup)")
	)
	w.register(fs)
	m.register(fs)
	fs.Var(sidecarEnv, "sidecar-env", "extra WARMUP_NAME=value for the ON arms' sidecar (repeatable)")
	fs.Var(armEnv, "arm-env", "extra ARM:WARMUP_NAME=value for one arm's sidecar, over --sidecar-env (repeatable)")
	fs.Var(armOpts, "arm-broker-opt", "extra ARM:-JVMOPTION for one arm's restarted brokers, after the chart's (repeatable): a JVM setting A/B'd against the same sidecar in another arm")
	fs.Var(armJava, "arm-broker-java", "ARM:JDK runs one arm's restarted brokers on another JDK, a JDK home or its bin/java (repeatable; the other roles keep the machine's): e.g. on_aot:/usr/lib/jvm/temurin-25-jdk-amd64, needed by the AOT arms")
	fs.Var(&levels, "calibration-levels", "closed-loop client counts of the calibration")
	fs.Var(&fractions, "rate-fractions", "shares of the warm capacity tried open loop, lowest first; the rate is the highest a warm broker serves with no cancellation and p99 ≤ 250 ms")
	if code, ok := parse(fs, args, stderr); !ok {
		return code
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if *smoke {
		// Smoke defaults, unless a flag says otherwise.
		def := func(flagName string, apply func()) {
			if !set[flagName] {
				apply()
			}
		}
		sm := bench.Smoke(bench.Config{})
		def("restarts", func() { *restarts = sm.Restarts })
		def("cold", func() { w.cold = sm.Cold })
		def("warm-start", func() { w.warmStart = sm.WarmStart })
		def("warm-end", func() { w.warmEnd = sm.WarmEnd })
		def("settle", func() { *settle = sm.Settle })
		def("calibration-step", func() { *calStep = sm.CalibrationStep })
		def("calibration-levels", func() { levels = sm.CalibrationLevels })
	}
	if err := w.check(); err != nil {
		fmt.Fprintln(stderr, "study:", err)
		return exitBadArgs
	}
	mix, mixName, err := m.load()
	if err != nil {
		fmt.Fprintln(stderr, "study:", err)
		return exitBadArgs
	}
	if *name == "" {
		*name = outputName(mixName, *smoke)
	}
	cfg := bench.Config{
		Arms: strings.Split(*arms, ","), Restarts: *restarts, Rate: *rate, RateFractions: fractions,
		Cold: w.cold, WarmStart: w.warmStart, WarmEnd: w.warmEnd, Timeout: w.timeout, Mix: mix, MixName: mixName,
		Settle: *settle, BasePort: *basePort, BenchRows: *rows, BenchSegments: *segments,
		SidecarEnv: sidecarEnv, ArmEnv: armEnv, ArmBrokerJVMOpts: armOpts, ArmBrokerJava: armJava, BaselineSidecar: *baseline, BrokerJMXAgent: *jmxAgent, BrokerNice: *nice, CalibrationLevels: levels, CalibrationStep: *calStep,
		WorkDir: *workDir, KeepWorkDir: *workDir != "", Smoke: *smoke,
		Command: "coldstart-bench study " + strings.Join(args, " "), Logger: log,
	}
	begin := time.Now()
	res, err := bench.RunStudy(ctx, cfg, *out, *name, *check)
	if res != nil && res.Study != nil && res.Study.Calibration != nil {
		c := res.Study.Calibration
		fmt.Fprintf(stdout, "Calibration (warm broker, study query mix):\n\n%s\n%s\n\n", c.Table(), c.Note())
	}
	if res != nil && res.Outputs.JSON != "" {
		fmt.Fprintf(stdout, "%s\nWrote %s, %s, %s in %s.\n", coldstart.Markdown(res.Study),
			res.Outputs.JSON, res.Outputs.Markdown, res.Outputs.PNG, time.Since(begin).Round(time.Second))
	}
	if err != nil {
		log.Error("study failed", "error", err)
		if *workDir == "" {
			fmt.Fprintln(stderr, "(rerun with --work-dir DIR to keep the cluster, sidecar and GC logs)")
		}
		return exitFailed
	}
	return exitOK
}

// outputName is a study's default output base name: the built-in mix (or a queries file)
// keeps "latest", another named mix is named after itself, a smoke run after "smoke".
func outputName(mix string, smoke bool) string {
	named := mix != "" && mix != coldstart.MixBuiltin
	switch {
	case smoke && named:
		return "smoke-" + mix
	case smoke:
		return "smoke"
	case named:
		return mix
	}
	return "latest"
}
