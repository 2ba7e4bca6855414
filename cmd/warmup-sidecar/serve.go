package main

import (
	"context"
	"io"

	"golang.org/x/sync/errgroup"

	"github.com/warmup-sidecar/warmup-sidecar/pkg/gatehttp"
)

// serve runs the long-lived sidecar until SIGTERM/SIGINT: then /readyz says 503
// (phase stopping), the HTTP server shuts down gracefully and it exits 0.
func serve(ctx context.Context, stderr io.Writer) int {
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
		return exitNotWarm
	}
	srv, err := gatehttp.Listen(cfg.ListenAddr, sc.handlers().Mux())
	if err != nil {
		log.Error("starting", "error", err)
		return exitBadConfig
	}
	log.Info("warmup-sidecar started", "version", version, "listen", srv.Addr(), "broker", cfg.BrokerURL,
		"enabled", cfg.Enabled, "budget", cfg.Budget.String(), "floor", cfg.MinIterations,
		"concurrency", cfg.Concurrency, "fail_closed", cfg.FailClosed, "rearm", cfg.Rearm)

	supCtx, stopSup := context.WithCancel(ctx)
	defer stopSup()
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error { return sc.sup.Run(supCtx) })
	g.Go(func() error {
		<-gctx.Done()
		// Readiness goes first: the kubelet sees 503 while connections drain.
		sc.gate.SetPhase(gatehttp.PhaseStopping, "stopping")
		sc.gate.Close()
		stopSup()
		return nil
	})
	g.Go(func() error { return srv.Serve(gctx) })
	if err := g.Wait(); err != nil {
		log.Error("stopped with error", "error", err)
		return exitNotWarm
	}
	log.Info("stopped")
	return exitOK
}
