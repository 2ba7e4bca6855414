package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/warmup-sidecar/warmup-sidecar/pkg/backoff"
)

// defaultDrain is how long /readyz keeps answering 503 after SIGTERM before the
// listener closes: one period of the chart's readinessProbe (5s), so the kubelet
// reads "stopping" rather than a refused connection, well inside the 30s
// terminationGracePeriod.
const defaultDrain = 5 * time.Second

// serve runs the long-lived sidecar until SIGTERM/SIGINT: then /readyz says 503
// (phase stopping) for the drain if it answered 200 until then, the HTTP server
// shuts down gracefully and it exits 0. A server that cannot start or fails exits 3.
func serve(ctx context.Context, args []string, stderr io.Writer) int {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	drain := fs.Duration("drain", defaultDrain, "after SIGTERM, how long /readyz answers 503 (stopping) before the listener closes")
	if err := fs.Parse(args); err != nil {
		return exitBadConfig
	}
	if *drain < 0 {
		fmt.Fprintf(stderr, "warmup-sidecar serve: -drain %s: expected a duration ≥ 0, such as 5s\n", *drain)
		return exitBadConfig
	}
	cfg, log, ok := loadConfig(stderr)
	if !ok {
		return exitBadConfig
	}
	client, err := newClient(cfg)
	if err != nil {
		log.Error("bad configuration", "error", err)
		return exitBadConfig
	}
	sc, err := newSidecar(cfg, log, client)
	if err != nil {
		log.Error("starting", "error", err)
		return exitStartup
	}
	srv, err := sc.listen(cfg.ListenAddr)
	if err != nil {
		log.Error("starting", "error", err)
		return exitStartup
	}
	log.Info("warmup-sidecar started", "version", version, "listen", srv.Addr(), "broker", cfg.BrokerURL,
		"enabled", cfg.Enabled, "budget", cfg.Budget.String(), "floor", cfg.MinIterations,
		"concurrency", cfg.Concurrency, "max_probe_rate", cfg.MaxProbeRate, "fail_closed", cfg.FailClosed, "rearm", cfg.Rearm)

	// The supervisor and the server each stop on their own context: the server
	// outlives the signal by the drain.
	supCtx, stopSup := context.WithCancel(context.Background())
	defer stopSup()
	serveCtx, stopServing := context.WithCancel(context.Background())
	defer stopServing()
	g, gctx := errgroup.WithContext(context.Background())
	g.Go(func() error { return sc.sup.Run(supCtx) })
	// The boost's give-back runs beside the warmup and never fails the group: its failures
	// are its own status, metric and log lines.
	if boost := sc.boostRunner(cfg); boost != nil {
		g.Go(func() error { return boost.Run(supCtx) })
	}
	g.Go(func() error { return srv.Serve(serveCtx) })
	g.Go(func() error {
		select {
		case <-ctx.Done():
			// A drain tells a kubelet that still reads 200 on /readyz "stopping" before the
			// listener closes. Where /readyz already answers 503 (the gate shut, or the broker
			// gone: a native sidecar is stopped only after its broker has exited) there is
			// nothing to tell, and a drain would only hold the pod's termination, and with it
			// every rolling update, by the drain per pod.
			ready, why := sc.handlers().Ready(gctx)
			// Readiness goes first, for good: the kubelet reads 503 while the pod drains.
			sc.gate.Stop("stopping")
			stopSup()
			if ready {
				log.Info("stopping: /readyz answers 503 until the listener closes", "drain", drain.String())
				backoff.Sleep(gctx, *drain)
			} else {
				log.Info("stopping: /readyz already answered 503, no drain", "why", why)
			}
		case <-gctx.Done(): // the server failed
		}
		stopSup()
		stopServing()
		return nil
	})
	if err := g.Wait(); err != nil {
		log.Error("stopped with error", "error", err)
		return exitStartup
	}
	log.Info("stopped")
	return exitOK
}
