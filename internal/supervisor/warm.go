package supervisor

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/warmup-sidecar/warmup-sidecar/pkg/gatehttp"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/prober"
)

var errBrokerGone = errors.New("broker went away during warmup")

// warmOnce runs one warmup from now (the broker just answered 200: convergence),
// with a progress logger and a health watch beside it. gone reports that the
// broker went away mid-run; the run was then cut short.
func (s *Supervisor) warmOnce(ctx context.Context) (rep prober.Report, gone bool) {
	start := s.Now()
	deadline := start.Add(s.Opts.Budget)
	s.Board.StartRun(start, deadline)
	s.Gate.Close()
	s.phase(gatehttp.PhaseWarming, fmt.Sprintf("exit %s, floor %d successful probes, budget %s", exitOf(s.Opts.Settings), s.Opts.Settings.MinIterations, s.Opts.Budget))

	settings := s.Opts.Settings
	settings.RunID = strconv.FormatInt(start.UnixMilli(), 36)
	quotas, _ := s.Broker.(prober.QuotaSource) // *pinot.Client: pace probes under table quotas
	p := &prober.Prober{
		Broker:   s.Broker,
		Planner:  prober.Planner{Catalog: s.Broker, Settings: settings},
		Observer: prober.Observers{gatehttp.Recorder{M: s.Metrics, Board: s.Board}, newLogObserver(s.Log)},
		Quotas:   quotas,
		Compile:  s.Compile,
		Now:      s.Now,
	}
	runCtx, cancelRun := context.WithCancel(ctx)
	defer cancelRun()
	g, gctx := errgroup.WithContext(runCtx)
	g.Go(func() error {
		rep = p.Run(gctx, deadline)
		cancelRun() // stops the helpers below
		return nil
	})
	g.Go(func() error {
		if s.watch(gctx) {
			return errBrokerGone
		}
		return nil
	})
	g.Go(func() error { s.progress(gctx, deadline); return nil })
	gone = errors.Is(g.Wait(), errBrokerGone)
	if ctx.Err() != nil {
		return rep, false // stopping: not a run outcome
	}
	if gone {
		rep.Outcome, rep.Err = prober.OutcomeFailed, errBrokerGone
	}
	s.finish(rep, start)
	return rep, gone
}

// finish records and logs a run's outcome.
func (s *Supervisor) finish(rep prober.Report, start time.Time) {
	dur := s.Now().Sub(start)
	s.Metrics.Runs.WithLabelValues(string(rep.Outcome)).Inc()
	s.Metrics.Duration.Set(dur.Seconds())
	s.Board.Update(func(st *gatehttp.Status) {
		st.Outcome = string(rep.Outcome)
		st.ExitReason = rep.Reason
		st.DurationSeconds = dur.Seconds()
		if rep.Err != nil {
			st.LastError = rep.Err.Error()
		}
	})
	attrs := []any{"outcome", rep.Outcome, "duration", dur.Round(time.Millisecond).String(),
		"probes_succeeded", rep.Succeeded, "probes_failed", rep.Failed, "floor", s.Opts.Settings.MinIterations}
	if st := s.Board.Snapshot(s.Gate); st.FirstProbesMedianMs > 0 {
		attrs = append(attrs, "first_probes_median_ms", st.FirstProbesMedianMs, "last_probes_median_ms", st.LastProbesMedianMs)
	}
	if rep.Reason != "" {
		attrs = append(attrs, "reason", rep.Reason)
	}
	if rep.Err != nil {
		attrs = append(attrs, "error", rep.Err.Error())
	}
	if rep.Outcome == prober.OutcomeWarm {
		s.Log.Info("warmup finished", attrs...)
	} else {
		s.Log.Warn("warmup finished", attrs...)
	}
}

// progress logs the run's figures every ProgressEvery until ctx ends.
func (s *Supervisor) progress(ctx context.Context, deadline time.Time) {
	t := time.NewTicker(s.ProgressEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			st := s.Board.Snapshot(s.Gate)
			attrs := []any{"probes_succeeded", st.ProbesSucceeded, "probes_failed", st.ProbesFailed,
				"floor", st.Floor, "shapes_converged", convergedOf(st.Shapes),
				"budget_left", max(0, deadline.Sub(s.Now())).Round(100 * time.Millisecond).String()}
			if st.LastError != "" {
				attrs = append(attrs, "last_error", st.LastError)
			}
			s.Log.Info("warming", attrs...)
		}
	}
}

// exitOf names the run's exit rule as the operator set it.
func exitOf(s prober.Settings) prober.ExitRule {
	if s.Exit == "" {
		return prober.ExitFloor
	}
	return s.Exit
}

// convergedOf says how many of the run's shapes have converged, as "n/m".
func convergedOf(shapes []gatehttp.ShapeStatus) string {
	n := 0
	for _, sh := range shapes {
		if sh.Converged {
			n++
		}
	}
	return fmt.Sprintf("%d/%d", n, len(shapes))
}
