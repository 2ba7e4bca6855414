package main

import (
	"context"
	"flag"
	"io"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/pkg/prober"
)

// once runs one warmup and exits 0 when warm, 1 when not, 2 on bad configuration,
// 3 when the sidecar itself cannot start.
func once(ctx context.Context, args []string, stderr io.Writer) int {
	fs := flag.NewFlagSet("once", flag.ContinueOnError)
	fs.SetOutput(stderr)
	wait := fs.Duration("wait", 5*time.Minute, "how long to wait for the broker's /health 200 before giving up")
	if err := fs.Parse(args); err != nil {
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
	if cfg.CPUBoostEnabled {
		// once is for VMs and hooks: it exits after the warmup, long before a give-back.
		log.Warn("WARMUP_CPU_BOOST_ENABLED is ignored by once: only serve gives the CPU boost back")
		sc.boostOff("once does not give the CPU boost back (serve does)")
	}
	waitCtx, cancel := context.WithTimeout(ctx, *wait)
	defer cancel()
	rep, err := sc.sup.Once(ctx, waitCtx)
	if err != nil {
		log.Error("once: not warm", "error", err)
		return exitNotWarm
	}
	if rep.Outcome != prober.OutcomeWarm {
		return exitNotWarm
	}
	return exitOK
}
