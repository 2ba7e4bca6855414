package report

import (
	"log/slog"
	"maps"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/warmup-sidecar/warmup-sidecar/pkg/pinot"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/prober"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/prober/event"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/prober/judge"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/prober/plan"
)

// logObserver writes a run's notable events: the plan, coverage gaps, dropped
// queries, and the first unauthorized answer (once: every probe after it would
// say the same).
type logObserver struct {
	log          *slog.Logger
	unauthorized atomic.Bool
	lastRetry    atomic.Pointer[string]
	generated    atomic.Bool // the plan's queries were generated, not the operator's
}

// NewLogObserver logs a run's notable events to l.
func NewLogObserver(l *slog.Logger) event.Observer { return &logObserver{log: l} }

// Observe logs the events worth a line; a JIT reading is not one (readings
// come every 500 ms and /status shows the last), nor are the floors' split
// and a shape's window (/status and the metrics show them).
func (o *logObserver) Observe(e event.Event) {
	switch e.Kind {
	case event.KindPlanned:
		o.planned(e.Plan)
	case event.KindPlanRetry:
		o.planRetry(e.Err)
	case event.KindProbed:
		o.probed(e)
	case event.KindDropped:
		o.queryDropped(e.SQL, e.Reason)
	case event.KindPaced:
		o.paced(e.Table, e.Quota, e.Rate)
	case event.KindJITUnavailable:
		o.jitUnavailable(e.Err)
	case event.KindJITReadFailed:
		o.jitReadFailed(e.Err, e.InARow)
	case event.KindEngineFound:
		o.engineFound(e.Engine)
	case event.KindEngineWarm:
		o.engineWarm(e.MultiStage, e.Lent)
	}
}

func (o *logObserver) planned(p prober.Plan) {
	o.generated.Store(!p.Custom)
	if p.Custom {
		o.log.Info("plan", "mode", "custom queries", "queries", p.Queries)
		return
	}
	o.log.Info("plan", "mode", "default probe", "tables", plan.TableNames(p.Tables), "queries", len(p.Queries),
		"shapes", p.ShapeNames(), "servers", len(p.Coverage.Universe), "uncovered", len(p.Coverage.Uncovered))
	o.log.Debug("plan queries", "queries", p.Queries)
	for _, leg := range slices.Sorted(maps.Keys(p.Fallbacks)) {
		o.log.Info("probing a table with LIMIT 1: no schema shapes for it", "table", leg, "reason", p.Fallbacks[leg])
	}
	if p.CatalogErr != "" {
		o.log.Warn("controller table list unavailable: probing WARMUP_TABLES; coverage judged over those tables only",
			"error", p.CatalogErr)
	}
	if len(p.Capped) > 0 {
		o.log.Warn("WARMUP_TABLES lists more routable tables than WARMUP_MAX_TABLES: probing the first ones",
			"probed", plan.TableNames(p.Tables), "left_out", p.Capped)
	}
	for _, t := range p.Dropped {
		o.log.Warn("WARMUP_TABLES names a table this broker cannot route: dropped", "table", t)
	}
	if n := len(p.Coverage.Uncovered); n > 0 {
		o.log.Warn("warmup tables do not cover every server this broker routes to",
			"uncovered_servers", strings.Join(p.Coverage.Uncovered, ","), "uncovered", n,
			"hint", "raise WARMUP_MAX_TABLES or list tables in WARMUP_TABLES")
	}
}

func (o *logObserver) planRetry(err error) {
	// Log a retry only when its reason changes: retries come every few 100 ms.
	msg := err.Error()
	if prev := o.lastRetry.Swap(&msg); prev != nil && *prev == msg {
		return
	}
	o.log.Warn("no warmup plan yet, retrying within the budget", "error", msg)
}

func (o *logObserver) probed(e event.Event) {
	switch e.Result.Class {
	case pinot.Unauthorized:
		if !o.unauthorized.Swap(true) {
			o.log.Error("broker refused the probe credentials", "error", e.Result.Message)
		}
	case pinot.Success:
	default:
		o.log.Debug("probe failed", "step", e.Step, "sql", e.SQL, "error", e.Result.Message)
	}
}

func (o *logObserver) queryDropped(sql, reason string) {
	what := "custom query"
	if o.generated.Load() {
		what = "generated probe"
	}
	why := "the broker cannot compile it"
	switch {
	case strings.HasPrefix(reason, judge.GiveUpPrefix):
		why = "it never succeeds"
	case strings.Contains(reason, pinot.EngineNotEnabledText):
		why = "the broker's multi-stage engine is not enabled"
	}
	o.log.Warn(what+" dropped: "+why, "sql", sql, "reason", reason)
}

// paced says once per run that a table's query quota holds the probes back.
func (o *logObserver) paced(table string, quota, rate float64) {
	o.log.Info("pacing probes under the table's query quota", "table", table,
		"quota_qps", quota, "probe_qps", rate)
}

// jitUnavailable says once per run why the JIT signal is ignored: its readings
// failed too many times in a row, and the run does not read again.
func (o *logObserver) jitUnavailable(err error) {
	o.log.Warn("broker JVM metrics unavailable: the JIT compile rate is ignored for this run", "error", err.Error())
}

// jitReadFailed says at debug that a reading failed and the next tick reads
// again: the last readings stand meanwhile.
func (o *logObserver) jitReadFailed(err error, inARow int) {
	o.log.Debug("broker JVM metrics reading failed: keeping the last readings", "error", err.Error(), "failed_in_a_row", inARow)
}

// engineFound says once per run what the run found of the multi-stage engine.
func (o *logObserver) engineFound(e prober.Engine) {
	o.log.Info("multi-stage engine", "probed", e.MultiStage, "found", e.Found)
}

// engineWarm says once per run and engine that its probes have what the exit
// rule asks of them, so its other workers now probe the engine still warming.
func (o *logObserver) engineWarm(multiStage bool, lent int) {
	engine := "single-stage"
	if multiStage {
		engine = "multi-stage"
	}
	o.log.Info("engine warm: its other workers help the engine still warming", "engine", engine, "workers_lent", lent)
}
