// Package supervisor is the sidecar's life cycle: wait for the broker's /health,
// warm it, open the gate, watch the broker, and re-arm when it restarts.
// What a run did is reported by internal/report (the /status document, the run
// metrics, the log lines); this package keeps the lifetime and feeds them.
//
// Failure policy: the gate always opens by the budget, unless fail-closed is
// asked for; then further runs follow, with a growing pause between them, until
// one reaches the floor. The budget counts once per broker process: only a
// restart starts a new one, and a slow /health is never taken for a restart.
package supervisor

import (
	"context"
	"github.com/warmup-sidecar/warmup-sidecar/internal/report"
	"log/slog"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/pkg/backoff"
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

// StartTimer is the optional part of a Broker that tells a restart for certain:
// the broker process's start instant ("" with no error: the broker cannot say).
// *pinot.Client satisfies it (GET /start-time, Pinot 1.x).
type StartTimer interface {
	StartTime(ctx context.Context) (string, error)
}

// BrokerStartObserver hears of each broker start once its /health is 200. It must not
// block: the warmup follows.
type BrokerStartObserver interface {
	BrokerStarted(ctx context.Context)
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
	Board   *report.StatusBoard
	Health  *gatehttp.BrokerHealth
	Metrics *report.Metrics
	// AOTCache is told of each broker start (a new lifetime) once its /health is 200:
	// report.AOTCacheReport reads the broker JVM's AOT log then. nil: none.
	AOTCache BrokerStartObserver
	Log      *slog.Logger
	Now      func() time.Time
	// Sleep waits within ctx (false when ctx ended first); nil: backoff.Sleep.
	Sleep func(ctx context.Context, d time.Duration) bool

	// Timing of the health loops; zero values take the defaults below.
	PollEvery     time.Duration // watch interval once warm (default 1s)
	WaitMax       time.Duration // longest wait between /health polls while waiting (default 2s)
	GoneAfter     int           // refused or non-200 polls in a row that mean the broker went away (default 3)
	ProgressEvery time.Duration // progress log interval while warming (default 2s)
	HealthTimeout time.Duration // per /health or /start-time call (default 1s)
	// Pause between fail-closed runs that did not warm: RerunMin doubling to
	// RerunMax (defaults 1s, 30s). A failure that repeats is logged once per RerunMax.
	RerunMin, RerunMax time.Duration
}

func (s *Supervisor) defaults() {
	if s.Now == nil {
		s.Now = time.Now
	}
	if s.Sleep == nil {
		s.Sleep = backoff.Sleep
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
	if s.RerunMin == 0 {
		s.RerunMin = time.Second
	}
	if s.RerunMax == 0 {
		s.RerunMax = 30 * time.Second
	}
}

// Run serves the life cycle until ctx ends. It returns nil on a clean stop.
func (s *Supervisor) Run(ctx context.Context) error {
	s.defaults()
	// The gate starts in this phase, so phase() would not log it: say it once.
	s.Log.Info("phase", "phase", string(gatehttp.PhaseWaiting), "reason", s.Gate.Reason())
	warmedOnce := false
	var lt *lifetime
	for ctx.Err() == nil {
		s.phase(gatehttp.PhaseWaiting, "waiting for the broker's /health to answer 200")
		s.Gate.Close()
		at, ok := s.waitHealthy(ctx, s.Opts.Enabled && (!warmedOnce || s.Opts.Rearm))
		if !ok {
			return nil
		}
		lt = s.healthy(ctx, lt, at)
		switch {
		case lt.opened:
			s.Gate.Open()
			s.phase(gatehttp.PhaseWarm, "broker back with the same start time: not a restart, still warm")
		case !s.Opts.Enabled || (warmedOnce && !s.Opts.Rearm):
			s.Gate.Open()
			lt.opened = true
			s.phase(gatehttp.PhaseWarm, passReason(s.Opts.Enabled))
		case !s.warmUntilOpen(ctx, lt):
			continue // broker went away mid-warmup, or ctx ended
		default:
			warmedOnce = true
		}
		why := s.watch(ctx, lt)
		if why == "" {
			return nil
		}
		s.Log.Warn("broker went away: readiness withdrawn", "why", why, "rearm", s.Opts.Rearm && s.Opts.Enabled)
	}
	return nil
}

func passReason(enabled bool) string {
	if !enabled {
		return "warmup disabled (WARMUP_ENABLED=false): ready follows the broker's /health"
	}
	return "broker back; re-arm disabled (WARMUP_REARM=false): ready follows the broker's /health"
}

func (s *Supervisor) phase(p gatehttp.Phase, reason string) {
	if s.Gate.Phase() != p {
		s.Log.Info("phase", "phase", string(p), "reason", reason)
	}
	s.Gate.SetPhase(p, reason)
}
