// Command demo runs warmup-sidecar against a real local Apache Pinot cluster:
// ZooKeeper, a controller, two servers and a broker on loopback (downloaded from
// Maven Central on first use). It restarts the broker so its JVM is cold, starts
// the sidecar, prints every phase change and progress line, then a summary and a verdict: warm on
// the evidence, or the gate opened by the budget and why. With --once the verdict is the last thing
// printed, after the cluster has stopped.
//
//	make demo              # keeps running until Ctrl-C
//	make demo ARGS=--once  # exits after one warmup: 0 warm, 1 not
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/e2e/cluster"
	"github.com/warmup-sidecar/warmup-sidecar/e2e/sidecar"
	"github.com/warmup-sidecar/warmup-sidecar/internal/report"
)

func main() {
	code, last := run()
	for _, l := range last {
		fmt.Println("demo | " + l)
	}
	os.Exit(code)
}

// run runs the demo and returns the exit code and the lines to print after everything it started
// has stopped (with --once, the verdict).
func run() (int, []string) {
	once := flag.Bool("once", false, "exit after one warmup")
	listen := flag.String("listen", "127.0.0.1:9095", "the sidecar's listen address")
	floor := flag.Int("floor", 300, "WARMUP_MIN_ITERATIONS")
	budget := flag.Duration("budget", 15*time.Second, "WARMUP_BUDGET")
	concurrency := flag.Int("concurrency", 4, "WARMUP_CONCURRENCY")
	multiStage := flag.String("multistage", "auto", "WARMUP_MULTISTAGE: auto, on or off")
	basePort := flag.Int("base-port", 0, "first port of the local Pinot cluster (0: the harness default)")
	flag.Parse()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	say := func(format string, a ...any) { fmt.Printf("demo | "+format+"\n", a...) }

	say("starting a local Apache Pinot cluster (first run downloads the jars from Maven Central)...")
	start := time.Now()
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	pinot, err := cluster.Start(ctx, cluster.Options{Logger: quiet, BasePort: *basePort})
	if err != nil {
		say("cluster: %v", err)
		return 1, nil
	}
	defer func() {
		say("stopping the Pinot cluster")
		if err := pinot.Stop(); err != nil {
			say("stop: %v", err)
		}
	}()
	say("cluster up in %s: broker %s, controller %s, servers %v, tables %v",
		time.Since(start).Round(time.Second), pinot.BrokerURL(), pinot.ControllerURL(), pinot.ServerInstanceIDs(), pinot.Tables())

	dir, err := os.MkdirTemp("", "warmup-demo")
	if err != nil {
		say("%v", err)
		return 1, nil
	}
	defer os.RemoveAll(dir)
	bin, err := sidecar.Build(ctx, dir)
	if err != nil {
		say("%v", err)
		return 1, nil
	}

	say("restarting the broker so its JVM is cold")
	if err := pinot.RestartBroker(ctx); err != nil {
		say("restart: %v", err)
		return 1, nil
	}
	env := map[string]string{
		"WARMUP_BROKER_URL":     pinot.BrokerURL(),
		"WARMUP_CONTROLLER_URL": pinot.ControllerURL(),
		"WARMUP_LISTEN_ADDR":    *listen,
		"WARMUP_MIN_ITERATIONS": fmt.Sprint(*floor),
		"WARMUP_BUDGET":         budget.String(),
		"WARMUP_CONCURRENCY":    fmt.Sprint(*concurrency),
		"WARMUP_MULTISTAGE":     *multiStage,
	}
	p, err := sidecar.Start(bin, env, &printer{})
	if err != nil {
		say("%v", err)
		return 1, nil
	}
	defer func() {
		if err := p.Stop(10 * time.Second); err != nil {
			say("sidecar stop: %v", err)
		}
	}()
	say("sidecar started (pid %d): %s/readyz %s/status %s/metrics", p.PID(), p.URL, p.URL, p.URL)

	st, err := waitOutcome(ctx, p)
	if err != nil {
		say("%v", err)
		return 1, nil
	}
	ready, why := p.Ready()
	say("SUMMARY")
	say("  outcome        %s in %.2fs (floor %d, budget %s)", st.Outcome, st.DurationSeconds, st.Floor, budget)
	say("  exit           %s: %s", st.Exit, st.ExitReason)
	say("  tables         %s", strings.Join(st.Tables, ", "))
	say("  queries        %s", strings.Join(st.Queries, " | "))
	say("  coverage       uncovered servers: %d %v", len(st.UncoveredServers), st.UncoveredServers)
	say("  probes         %d succeeded, %d failed, %d no-scatter", st.ProbesSucceeded, st.ProbesFailed, st.NoScatterProbes)
	say("  latency        first 50 probes median %.2f ms, last 50 median %.2f ms", st.FirstProbesMedianMs, st.LastProbesMedianMs)
	say("  /readyz        ready=%v (%s)", ready, why)
	lines, code := verdict(st, *budget, ready, why)
	if *once {
		return code, append(lines, fmt.Sprintf("exit %d (--once: 0 warm, 1 not)", code))
	}
	for _, l := range lines {
		say("%s", l)
	}
	say("the sidecar keeps watching the broker (try: kill the broker JVM, pid %d); Ctrl-C to stop", pinot.BrokerPID())
	<-ctx.Done()
	return 0, nil
}

// waitOutcome polls /status until the run has an outcome.
func waitOutcome(ctx context.Context, p *sidecar.Proc) (report.Status, error) {
	for {
		if st, err := p.Status(); err == nil && st.Outcome != "" {
			return st, nil
		}
		if done, perr := p.Exited(); done {
			return report.Status{}, fmt.Errorf("sidecar exited: %v", perr)
		}
		select {
		case <-ctx.Done():
			return report.Status{}, ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// printer turns the sidecar's JSON log lines into one readable line each.
type printer struct{ buf []byte }

func (pr *printer) Write(b []byte) (int, error) {
	pr.buf = append(pr.buf, b...)
	for {
		i := strings.IndexByte(string(pr.buf), '\n')
		if i < 0 {
			return len(b), nil
		}
		line := pr.buf[:i]
		pr.buf = pr.buf[i+1:]
		var m map[string]any
		if json.Unmarshal(line, &m) != nil {
			fmt.Printf("sidecar | %s\n", line)
			continue
		}
		var sb strings.Builder
		fmt.Fprintf(&sb, "sidecar | %-5v %v", m["level"], m["msg"])
		keys := make([]string, 0, len(m))
		for k := range m {
			if k != "time" && k != "level" && k != "msg" {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		for _, k := range keys {
			fmt.Fprintf(&sb, " %s=%v", k, m[k])
		}
		fmt.Println(sb.String())
	}
}
