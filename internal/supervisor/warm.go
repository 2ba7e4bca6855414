package supervisor

import (
	"context"
	"errors"
	"fmt"
	"github.com/warmup-sidecar/warmup-sidecar/internal/report"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/gatehttp"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/prober"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/prober/event"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/prober/judge"
	"golang.org/x/sync/errgroup"
	"log/slog"
	"strconv"
	"time"
)

var errBrokerGone = errors.New("broker went away during warmup")

// runEnd is how one warmup run ended.
type runEnd struct {
	rep prober.Report
	// why the broker went away mid-run, cutting it short ("" when it did not).
	why string
	// level the outcome was logged at: a failure repeated within RerunMax is quiet.
	level slog.Level
}

// warmOnce runs one warmup against lt's deadline, with a progress logger and a
// health watch beside it.
func (s *Supervisor) warmOnce(ctx context.Context, lt *lifetime) runEnd {
	start := s.Now()
	deadline := s.runDeadline(lt, start)
	s.Board.StartRun(start, deadline)
	s.Gate.Close()
	s.phase(gatehttp.PhaseWarming, fmt.Sprintf("exit %s, floor %d successful probes, budget %s",
		exitOf(s.Opts.Settings), s.Opts.Settings.MinIterations, max(0, deadline.Sub(start)).Round(time.Millisecond)))

	settings := s.Opts.Settings
	settings.RunID = strconv.FormatInt(start.UnixMilli(), 36)
	quotas, _ := s.Broker.(prober.QuotaSource) // *pinot.Client: pace probes under table quotas
	p := &prober.Prober{
		Broker:  s.Broker,
		Catalog: s.Broker, Settings: settings,
		Observer: event.Observers{report.Recorder{M: s.Metrics, Board: s.Board}, report.NewLogObserver(s.Log)},
		Quotas:   quotas,
		Compile:  s.Compile,
		Now:      s.Now,
	}
	var end runEnd
	end.why = s.watching(ctx, lt, func(ctx context.Context) {
		pctx, stop := context.WithCancel(ctx)
		var g errgroup.Group
		g.Go(func() error { s.progress(pctx, deadline); return nil })
		end.rep = p.Run(ctx, deadline)
		stop()
		_ = g.Wait()
	})
	if ctx.Err() != nil {
		return runEnd{rep: end.rep} // stopping: not a run outcome
	}
	if end.why != "" {
		end.rep.Outcome, end.rep.Err = prober.OutcomeFailed, fmt.Errorf("%w (%s)", errBrokerGone, end.why)
		// The prober's own reason ("budget ran out ...") is about a run the broker cut short.
		end.rep.Reason = "the broker went away before the run had its outcome; a new run starts when it is back"
	}
	end.level = s.level(lt, end.rep)
	s.finish(end, start)
	return end
}

// runDeadline is the lifetime's deadline. A fail-closed rerun after it passed
// gets a budget of its own: fail-closed never opens by the budget, so the runs
// that follow still each need room to reach the floor.
func (s *Supervisor) runDeadline(lt *lifetime, now time.Time) time.Time {
	if s.Opts.FailClosed && !now.Before(lt.deadline) {
		return now.Add(s.Opts.Budget)
	}
	return lt.deadline
}

// watching runs fn with a health watch beside it until fn returns, and says why
// the broker went away if the watch saw it first (fn's ctx is then cancelled).
func (s *Supervisor) watching(ctx context.Context, lt *lifetime, fn func(ctx context.Context)) (why string) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var g errgroup.Group
	g.Go(func() error { fn(ctx); cancel(); return nil })
	g.Go(func() error {
		if why = s.watch(ctx, lt); why != "" {
			cancel()
		}
		return nil
	})
	_ = g.Wait()
	return why
}

// level is the log level of a run's outcome: Info when warm; Warn for a failure
// the first time, when it changes, and once per RerunMax; Debug for the same
// failure again within that interval.
func (s *Supervisor) level(lt *lifetime, rep prober.Report) slog.Level {
	if rep.Outcome == prober.OutcomeWarm {
		return slog.LevelInfo
	}
	key := string(rep.Outcome)
	if rep.Err != nil {
		key += ": " + rep.Err.Error()
	}
	if lt.repeats.loud(s.Now(), key) {
		return slog.LevelWarn
	}
	return slog.LevelDebug
}

// finish records and logs a run's outcome.
func (s *Supervisor) finish(end runEnd, start time.Time) {
	rep := end.rep
	dur := s.Now().Sub(start)
	s.Metrics.Runs.WithLabelValues(string(rep.Outcome)).Inc()
	s.Metrics.Duration.Set(dur.Seconds())
	s.Board.Update(func(st *report.Status) {
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
	s.Log.Log(context.Background(), end.level, "warmup finished", attrs...)
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
func exitOf(s prober.Settings) judge.ExitRule {
	if s.Exit == "" {
		return judge.ExitFloor
	}
	return s.Exit
}

// convergedOf says how many of the run's shapes have converged, as "n/m".
func convergedOf(shapes []report.ShapeStatus) string {
	n := 0
	for _, sh := range shapes {
		if sh.Converged {
			n++
		}
	}
	return fmt.Sprintf("%d/%d", n, len(shapes))
}
