package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/e2e/bench"
	"github.com/warmup-sidecar/warmup-sidecar/e2e/coldstart"
)

// calibrateCmd measures a warm broker's capacity with the query mix and derives the rate.
func calibrateCmd(ctx context.Context, args []string, stdout, stderr io.Writer, log *slog.Logger) int {
	fs := flag.NewFlagSet("calibrate", flag.ContinueOnError)
	var (
		m         mixFlags
		header    = headerList{}
		levels    = intList{1, 2, 4, 8, 16, 32}
		fractions = floatList(coldstart.DefaultFractions)
		broker    = fs.String("broker", "", "a WARM broker's base URL (it is loaded for about a minute)")
		local     = fs.Bool("local", false, "start the local cluster (as study does) and calibrate its broker")
		basePort  = fs.Int("base-port", bench.DefaultBasePort, "first port of the local cluster with --local")
		step      = fs.Duration("step", 6*time.Second, "length of each closed-loop step")
		timeout   = fs.Duration("timeout", coldstart.DefaultTimeout, "client timeout")
	)
	m.register(fs)
	fs.Var(header, "header", "request header, \"Name: value\" (repeatable)")
	fs.Var(&levels, "levels", "closed-loop client counts")
	fs.Var(&fractions, "rate-fractions", "shares of the capacity tried open loop, lowest first; the rate is the highest a warm broker serves with no cancellation and p99 ≤ 250 ms")
	if code, ok := parse(fs, args, stderr); !ok {
		return code
	}
	mix, _, err := m.load()
	if err != nil {
		fmt.Fprintln(stderr, "calibrate:", err)
		return exitBadArgs
	}
	if *local == (*broker != "") {
		fmt.Fprintln(stderr, "calibrate: give exactly one of --broker URL and --local")
		return exitBadArgs
	}
	cfg := bench.Config{Mix: mix, BasePort: *basePort, CalibrationLevels: levels, CalibrationStep: *step,
		RateFractions: fractions, Timeout: *timeout, Logger: log}
	var c *coldstart.Calibration
	if *local {
		env, err := bench.Setup(ctx, cfg)
		if err != nil {
			log.Error("calibrate: setup failed", "error", err)
			return exitFailed
		}
		defer env.Close()
		c, err = env.Calibrate(ctx)
		if err != nil {
			log.Error("calibrate", "error", err)
			return exitFailed
		}
	} else {
		c, err = bench.CalibrateBroker(ctx, cfg, *broker, http.Header(header))
		if err != nil {
			log.Error("calibrate", "error", err)
			return exitFailed
		}
	}
	fmt.Fprintf(stdout, "%s\n%s\n", c.Table(), c.Note())
	return exitOK
}
