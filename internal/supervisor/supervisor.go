// Package supervisor is the sidecar's life cycle: wait for the broker's /health,
// warm it, open the gate, watch the broker, and re-arm when it restarts.
//
// Failure policy: the gate always opens by the budget, unless fail-closed is
// asked for; then further runs follow until one reaches the floor.
package supervisor

import (
	"context"
	"log/slog"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/pkg/gatehttp"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/pinot"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/prober"
)

// Broker is everything the supervisor asks of Pinot. *pinot.Client satisfies it.
type Broker interface {
	prober.Broker
	prober.Catalog
	Health(ctx context.Context) (pinot.Health, error)
}

// Options are the policy knobs (from WARMUP_*).
type Options struct {
	Enabled    bool
	Budget     time.Duration
	FailClosed bool
	Rearm      bool
	Settings   prober.Settings
}

// Supervisor wires one broker to one gate.
type Supervisor struct {
	Opts   Options
	Broker Broker
	// Compile reads the broker JVM's JIT compile time during runs; nil: none.
	Compile prober.CompileTimeSource
	Gate    *gatehttp.Gate
	Board   *gatehttp.StatusBoard
	Health  *gatehttp.BrokerHealth
	Metrics *gatehttp.Metrics
	Log     *slog.Logger
	Now     func() time.Time

	// Timing of the health loops; zero values take the defaults below.
	PollEvery     time.Duration // watch interval once warm (default 1s)
	WaitMax       time.Duration // longest wait between /health polls while waiting (default 2s)
	GoneAfter     int           // consecutive non-200 polls that mean the broker went away (default 3)
	ProgressEvery time.Duration // progress log interval while warming (default 2s)
	HealthTimeout time.Duration // per /health call (default 1s)
}

func (s *Supervisor) defaults() {
	if s.Now == nil {
		s.Now = time.Now
	}
	if s.PollEvery == 0 {
		s.PollEvery = time.Second
	}
	if s.WaitMax == 0 {
		s.WaitMax = 2 * time.Second
	}
	if s.GoneAfter == 0 {
		s.GoneAfter = 3
	}
	if s.ProgressEvery == 0 {
		s.ProgressEvery = 2 * time.Second
	}
	if s.HealthTimeout == 0 {
		s.HealthTimeout = time.Second
	}
}

// Run serves the life cycle until ctx ends. It returns nil on a clean stop.
func (s *Supervisor) Run(ctx context.Context) error {
	s.defaults()
	// The gate starts in this phase, so phase() would not log it: say it once.
	s.Log.Info("phase", "phase", string(gatehttp.PhaseWaiting), "reason", s.Gate.Reason())
	warmedOnce := false
	for ctx.Err() == nil {
		s.phase(gatehttp.PhaseWaiting, "waiting for the broker's /health to answer 200")
		s.Gate.Close()
		if !s.waitHealthy(ctx) {
			return nil
		}
		if !s.Opts.Enabled || (warmedOnce && !s.Opts.Rearm) {
			s.Gate.Open()
			s.phase(gatehttp.PhaseWarm, passReason(s.Opts.Enabled))
		} else if !s.warmUntilOpen(ctx) {
			continue // broker went away mid-warmup, or ctx ended
		} else {
			warmedOnce = true
		}
		if !s.watch(ctx) {
			return nil
		}
		s.Log.Warn("broker went away: readiness withdrawn", "rearm", s.Opts.Rearm && s.Opts.Enabled)
	}
	return nil
}

func passReason(enabled bool) string {
	if !enabled {
		return "warmup disabled (WARMUP_ENABLED=false): ready follows the broker's /health"
	}
	return "broker back; re-arm disabled (WARMUP_REARM=false): ready follows the broker's /health"
}

// warmUntilOpen runs warmups until the gate may open: one run when fail-open; runs
// until warm when fail-closed. False when the broker went away or ctx ended.
func (s *Supervisor) warmUntilOpen(ctx context.Context) bool {
	for {
		rep, gone := s.warmOnce(ctx)
		if gone || ctx.Err() != nil {
			return false
		}
		if rep.Outcome == prober.OutcomeWarm || !s.Opts.FailClosed {
			s.Gate.Open()
			s.phase(gatehttp.PhaseWarm, "warmup finished: "+string(rep.Outcome))
			return true
		}
		s.Log.Warn("broker not warm and WARMUP_FAIL_CLOSED=true: readiness stays withdrawn, warming again",
			"outcome", rep.Outcome, "probes_succeeded", rep.Succeeded, "floor", s.Opts.Settings.MinIterations)
	}
}

func (s *Supervisor) phase(p gatehttp.Phase, reason string) {
	if s.Gate.Phase() != p {
		s.Log.Info("phase", "phase", string(p), "reason", reason)
	}
	s.Gate.SetPhase(p, reason)
}
