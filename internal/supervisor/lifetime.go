package supervisor

import (
	"context"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/pkg/backoff"
)

// lifetime is one broker process as the supervisor sees it: from the first
// /health 200 after a (re)start until a restart is seen. Its budget deadline is
// counted once and kept across every run and outage that is not a restart.
type lifetime struct {
	startTime  string    // the broker's /start-time; "" while unknown
	noEndpoint bool      // the broker has no /start-time (404): stop asking
	deadline   time.Time // healthy + Budget
	opened     bool      // the gate opened in this lifetime
	rerun      backoff.Doubling
	repeats    repeats
}

// healthy is called on a /health 200 seen at after waiting (the broker joined
// Helix and built its routing: the budget starts there, not once /start-time
// has answered, which may take up to HealthTimeout). The broker is the same
// process as lt's when both start times are known and equal; otherwise (a changed
// start time, or none to compare) it restarted and a new lifetime, with a new
// budget counted from at, begins.
func (s *Supervisor) healthy(ctx context.Context, lt *lifetime, at time.Time) *lifetime {
	st, absent := s.startTime(ctx)
	if lt != nil && lt.startTime != "" && st == lt.startTime {
		s.Log.Info("broker back with the same start time: not a restart, its budget and warmth are kept", "start_time", st)
		return lt
	}
	if s.AOTCache != nil {
		s.AOTCache.BrokerStarted(ctx)
	}
	return &lifetime{
		startTime: st, noEndpoint: absent, deadline: at.Add(s.Opts.Budget),
		rerun:   backoff.Doubling{Min: s.RerunMin, Max: s.RerunMax},
		repeats: repeats{every: s.RerunMax},
	}
}

// restarted asks /start-time and reports a restart when it changed from the
// value known for lt ("" when it did not, or nothing can be compared).
func (s *Supervisor) restarted(ctx context.Context, lt *lifetime) string {
	if lt.noEndpoint {
		return ""
	}
	st, _ := s.startTime(ctx)
	switch {
	case st == "":
		return ""
	case lt.startTime == "":
		lt.startTime = st // unknown when it turned healthy (a slow answer): learn it now
		return ""
	case st != lt.startTime:
		return "broker restarted: its /start-time changed from " + lt.startTime + " to " + st
	}
	return ""
}

// startTime asks the broker's start instant within HealthTimeout: "" when it
// cannot tell; absent when it has no such endpoint at all.
func (s *Supervisor) startTime(ctx context.Context) (st string, absent bool) {
	b, ok := s.Broker.(StartTimer)
	if !ok {
		return "", true
	}
	cctx, cancel := context.WithTimeout(ctx, s.HealthTimeout)
	defer cancel()
	st, err := b.StartTime(cctx)
	if err != nil {
		s.Log.Debug("broker start time unknown", "error", err)
		return "", false
	}
	return st, st == ""
}
