package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/e2e/cluster"
	"github.com/warmup-sidecar/warmup-sidecar/e2e/coldstart"
	"github.com/warmup-sidecar/warmup-sidecar/e2e/rollout"
)

// rolloutCmd runs the rolling-restart study (e2e/rollout): the official chart's brokers on the
// Kubernetes test bed, rolled by helm upgrade under open-loop load through their Service, arms
// interleaved.
func rolloutCmd(ctx context.Context, args []string, stdout, stderr io.Writer, log *slog.Logger) int {
	fs := flag.NewFlagSet("rollout", flag.ContinueOnError)
	var (
		m          mixFlags
		sidecarEnv = envList{}
		levels     = intList{1, 2, 4, 8, 16, 32}
		fractions  = floatList(coldstart.DefaultFractions)
		smoke      = fs.Bool("smoke", false, "two brokers, off and on_fast, one rollout each, 5 s / 2 s probes (on_fast: 1 s), short windows: checks the tool works, measures nothing")
		arms       = fs.String("arms", strings.Join(rollout.StudyArms, ","), "arms, interleaved in every round (all: "+strings.Join(rollout.ArmOrder, ",")+")")
		rollouts   = fs.Int("rollouts", 3, "rollouts per arm")
		brokers    = fs.Int("brokers", 3, "broker pods (the chart's broker.replicaCount, ≥ 2)")
		javaClient = fs.Bool("java-client", true, "beside the balancer's load, a client that picks brokers as Pinot's Java client does (the real pinot-java-client over ZooKeeper, e2e/zkclient)")
		javaQPS    = fs.Float64("java-client-qps", 0, "the Java client's arrivals per second (0: a tenth of the rate, at least 1)")
		scaleOut   = fs.Bool("scale-out", false, "one scale-out per arm (helm upgrade with one more replica) right after its last rollout, then back, unmeasured")
		rate       = fs.Float64("rate", 0, "arrivals per second through the balancer; 0: calibrate on the warm fleet (see --rate-fractions)")
		fleetWarm  = fs.Duration("fleet-warmup", rollout.DefaultFleetWarmup, "with --rate: load at that rate through every broker before the first event (the calibration does it otherwise); 0 skips it")
		timeout    = fs.Duration("timeout", coldstart.DefaultTimeout, "client timeout: a round trip beyond it is a cancellation")
		warm       = fs.Duration("warm", 15*time.Second, "the least load before the steady window (not measured)")
		steadyWait = fs.Duration("steady-wait", rollout.DefaultSteadyWait, "the most load before the steady window: it begins once the fleet has served the load for 10 s without a lost query, or at this, and the event is then marked unsettled")
		steady     = fs.Duration("steady", 30*time.Second, "steady window before the rollout (the helm upgrade): the p99 the rollout's is compared with")
		tail       = fs.Duration("tail", 45*time.Second, "load after the last pod is available (its cold start comes after its Ready)")
		settle     = fs.Duration("settle", 5*time.Second, "pause between events")
		podBound   = fs.Duration("pod-bound", rollout.DefaultPodBound, "an event not rolled out within this per pod is recorded as unfinished (its load stopped at the bound), then the study waits for the fleet with no load and goes on")
		cpuRequest = fs.String("broker-cpu-request", rollout.DefaultBrokerCPURequest, "the broker container's CPU request (chart value broker.resources.requests.cpu); none (or empty): not set, as the official chart ships the broker")
		cpuLimit   = fs.String("broker-cpu-limit", rollout.DefaultBrokerCPULimit, "the broker container's CPU limit (broker.resources.limits.cpu); none (or empty): not set, as the official chart ships the broker (a starting JVM takes the node's spare cores; the boost arms then want on_boost_300m); the limits of every broker pod and the harness's servers share the machine")
		boostLimit = fs.String("boost-cpu-limit", rollout.DefaultBoostCPULimit, "on_boost: the broker container's CPU limit until the sidecar gives it back (warmup-inject's brokerCpuBoost.cpu.limit)")
		fixedHold  = fs.Duration("boost-fixed-hold", rollout.DefaultBoostFixedHold, "on_boost_fixed: how long after the gate opened the boost is given back (brokerCpuBoost.settle, no JIT signal)")
		gentle     = fs.Int("gentle-concurrency", rollout.DefaultGentleConcurrency, "on_boost_gentle: the sidecar's warmup.concurrency (probes in flight; its default 4)")
		paced      = fs.Float64("paced-rate", 0, "on_fast_paced: the sidecar's warmup.maxProbeRate in probes/s (0: the study's rate over its brokers)")
		compilers  = fs.Int("boost-compilers", rollout.DefaultBoostCompilers, "on_boost_compilers: the broker JVM's -XX:CICompilerCount (the chart's JVM has 2: one C1, one C2 thread)")
		jmxAgent   = fs.Bool("jmx-agent", true, "load the Prometheus JMX exporter agent in every arm's broker JVM (broker.jvmOpts, as Pinot's monitoring guide does): the ON arms' sidecars read the JIT signal from it (not on_boost_fixed's) and the study records each pod's JIT compile time")
		initDelay  = fs.Duration("initial-delay", 0, "the broker readiness probe's initialDelaySeconds (broker.probes.readiness; 0: the chart's 60 s)")
		proxySync  = fs.Duration("proxy-sync", rollout.DefaultProxySync, "the service proxy's minimum sync period (kube-proxy's --iptables-min-sync-period; 0: its default, 1 s)")
		slowStart  = fs.Duration("slowstart", rollout.DefaultSlowStart, "HAProxy slowstart of the *_slowstart arms")
		calStep    = fs.Duration("calibration-step", 6*time.Second, "length of each closed-loop calibration step")
		basePort   = fs.Int("base-port", rollout.DefaultBasePort, fmt.Sprintf("first port of the local cluster (it uses %d ports from there; the pods' host ports follow)", cluster.PortSpan))
		rows       = fs.Int("bench-rows", 0, "rows of the benchmark table (0: 1,000,000)")
		out        = fs.String("out", "results/rollout", "directory for <name>.json, <name>.md and <name>-<arm>.png")
		name       = fs.String("name", "", "output base name (default latest; smoke with --smoke)")
		workDir    = fs.String("work-dir", "", "keep the cluster's and the test bed's logs (control plane, pods), HAProxy's and the raw traces here (default: a temp dir, removed)")
		check      = fs.Bool("check", true, "fail when the output shows the tool did not work")
		report     = fs.String("report", "", "re-render a study's <name>.md and timelines from its JSON (no cluster), then exit")
		picture    = fs.String("picture", "", "with --report: also draw two arms' rollouts on one picture, e.g. off,on_default: <name>-<a>-vs-<b>.png beside the JSON")
		remeasure  = fs.Bool("remeasure", false, "with --report and --work-dir: recompute each event's entry and quiet-window figures from the raw traces the study kept in its work dir")
	)
	m.register(fs)
	fs.Var(sidecarEnv, "sidecar-env", "a sidecar setting WARMUP_NAME=value for the ON pods, given to warmup-inject as the chart value that sets it (repeatable)")
	var notes stringList
	fs.Var(&notes, "note", "a sentence recorded in the study's notes, e.g. what else ran on the machine (repeatable)")
	fs.Var(&levels, "calibration-levels", "closed-loop client counts of the calibration")
	fs.Var(&fractions, "rate-fractions", "shares of the warm fleet's capacity tried open loop, lowest first")
	if code, ok := parse(fs, args, stderr); !ok {
		return code
	}
	if *remeasure && (*report == "" || *workDir == "") {
		fmt.Fprintln(stderr, "rollout: --remeasure needs --report (the study's JSON) and --work-dir (where it kept raw/)")
		return exitBadArgs
	}
	if *report != "" {
		rawDir := ""
		if *remeasure {
			rawDir = *workDir
		}
		var arms [2]string
		if *picture != "" {
			a, b, ok := strings.Cut(*picture, ",")
			if !ok || a == "" || b == "" || strings.Contains(b, ",") {
				fmt.Fprintf(stderr, "rollout: --picture %q: expected two arms, e.g. off,on_default\n", *picture)
				return exitBadArgs
			}
			arms = [2]string{a, b}
		}
		s, code := rolloutReport(*report, rawDir, stdout, stderr)
		if code != exitOK || *picture == "" {
			return code
		}
		return rolloutPicture(*report, s, arms, stdout, stderr)
	}
	if *picture != "" {
		fmt.Fprintln(stderr, "rollout: --picture needs --report (the study's JSON)")
		return exitBadArgs
	}
	for _, q := range []*string{cpuRequest, cpuLimit} {
		if *q == "" {
			*q = rollout.CPUNone
		}
	}
	mix, mixName, err := m.load()
	if err != nil {
		fmt.Fprintln(stderr, "rollout:", err)
		return exitBadArgs
	}
	cfg := rollout.Config{
		Rollouts: *rollouts, ScaleOut: *scaleOut, JavaClient: *javaClient, JavaClientQPS: *javaQPS, Brokers: *brokers, Rate: *rate, FleetWarmup: *fleetWarm, RateFractions: fractions,
		Warm: *warm, SteadyWait: *steadyWait, Steady: *steady, Tail: *tail, Settle: *settle, PodBound: *podBound, Timeout: *timeout, Mix: mix, MixName: mixName,
		BrokerCPURequest: *cpuRequest, BrokerCPULimit: *cpuLimit, BoostCPULimit: *boostLimit, BoostFixedHold: *fixedHold, BoostCompilers: *compilers, GentleConcurrency: *gentle, PacedRate: *paced, JMXAgent: *jmxAgent, ReadinessDelay: *initDelay, ProxySync: *proxySync, SlowStart: *slowStart, SidecarEnv: sidecarEnv, BasePort: *basePort, BenchRows: *rows,
		CalibrationLevels: levels, CalibrationStep: *calStep, WorkDir: *workDir, KeepWorkDir: *workDir != "",
		Out: *out, Name: *name, Notes: notes, Command: "coldstart-bench rollout " + strings.Join(args, " "), Logger: log, Progress: nil,
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if set["arms"] || !*smoke {
		cfg.Arms = strings.Split(*arms, ",")
	}
	if *smoke {
		sm := rollout.Smoke(cfg)
		sm.Name = cfg.Name
		if sm.Name == "" {
			sm.Name = "smoke"
		}
		cfg = sm
		// What is given on the command line wins over the smoke's settings.
		if set["broker-cpu-request"] {
			cfg.BrokerCPURequest = *cpuRequest
		}
		if set["broker-cpu-limit"] {
			cfg.BrokerCPULimit = *cpuLimit
		}
		if set["initial-delay"] {
			cfg.ReadinessDelay = *initDelay
		}
	}
	if err := cfg.Validate(); err != nil {
		fmt.Fprintln(stderr, "rollout:", err)
		return exitBadArgs
	}
	begin := time.Now()
	s, err := rollout.RunStudy(ctx, cfg)
	if s != nil && len(s.Arms) > 0 {
		fmt.Fprintf(stdout, "%s\n%s\n", rollout.Table(s), rollout.Method(s))
	}
	if err != nil {
		log.Error("rollout study failed", "error", err)
		if *workDir == "" {
			fmt.Fprintln(stderr, "(rerun with --work-dir DIR to keep the cluster's, the test bed's and HAProxy's logs)")
		}
		return exitFailed
	}
	o := cfg.Outputs()
	fmt.Fprintf(stdout, "Wrote %s, %s and %d timelines in %s.\n", o.JSON, o.Markdown, len(o.PNGs), time.Since(begin).Round(time.Second))
	if *check {
		if err := rollout.CheckStudy(s, cfg, o); err != nil {
			fmt.Fprintf(stderr, "rollout: the study's output shows the tool did not work:\n%v\n", err)
			return exitFailed
		}
	}
	return exitOK
}

// stringList is a repeatable string flag.
type stringList []string

func (l *stringList) String() string { return strings.Join(*l, "; ") }

func (l *stringList) Set(v string) error {
	*l = append(*l, v)
	return nil
}

// rolloutPicture draws the study's two arms on one picture beside its JSON at path.
func rolloutPicture(path string, s *rollout.Study, arms [2]string, stdout, stderr io.Writer) int {
	out := strings.TrimSuffix(path, ".json") + "-" + arms[0] + "-vs-" + arms[1] + ".png"
	if err := rollout.WriteCompare(out, s, arms); err != nil {
		fmt.Fprintln(stderr, "rollout:", err)
		return exitBadArgs
	}
	fmt.Fprintf(stdout, "Wrote %s.\n", out)
	return exitOK
}

// rolloutReport re-renders a rollout study's markdown and timelines from its JSON (and returns it), after
// recomputing its later figures from the raw traces in rawDir when it is set.
func rolloutReport(path, rawDir string, stdout, stderr io.Writer) (*rollout.Study, int) {
	s, err := rollout.ReadStudy(path)
	if err != nil {
		fmt.Fprintln(stderr, "rollout:", err)
		return nil, exitFailed
	}
	if rawDir != "" {
		if err := rollout.Remeasure(s, rawDir); err != nil {
			fmt.Fprintln(stderr, "rollout:", err)
			return nil, exitFailed
		}
	}
	dir, name := filepath.Split(path)
	o, err := rollout.WriteResults(filepath.Clean(dir), strings.TrimSuffix(name, ".json"), s)
	if err != nil {
		fmt.Fprintln(stderr, "rollout:", err)
		return nil, exitFailed
	}
	fmt.Fprintf(stdout, "%s\nWrote %s and %d timelines.\n", rollout.Table(s), o.Markdown, len(o.PNGs))
	return s, exitOK
}
