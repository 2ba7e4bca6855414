package report

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/pkg/gatehttp"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/pinot"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/prober"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/prober/event"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/prober/judge"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/selector"
)

// /status says in one line what the sidecar decided and why: the outcome with
// its reason, the multi-stage engine left out, the queries dropped (with their
// shape and last error) and the legs kept on LIMIT 1.
func TestStatusSaysInOneLineWhatWasDecided(t *testing.T) {
	f := newFixture(t)
	rec := Recorder{M: f.m, Board: f.board}
	if s := f.status(t); s.Decided != "waiting for the broker" {
		t.Errorf("before a run: %q", s.Decided)
	}
	now := time.Now()
	f.board.StartRun(now, now.Add(15*time.Second))
	f.gate.SetPhase(gatehttp.PhaseWarming, "warming")
	plan := prober.Plan{Fallbacks: map[string]string{"clicks_REALTIME": "no schema: HTTP 404"}}
	plan.Add("agg_metrics", `SELECT COUNT(*) FROM "orders_OFFLINE"`)
	plan.Add("percentile", `SELECT PERCENTILE("amount", 95) FROM "orders_OFFLINE"`)
	plan.Add(prober.ShapeLimit1, `SELECT * FROM "clicks_REALTIME" LIMIT 1`)
	rec.Observe(event.Event{Kind: event.KindPlanned, Plan: plan})
	rec.Observe(event.Event{Kind: event.KindEngineFound, Engine: prober.Engine{Found: "the broker's multi-stage engine is not enabled (error 450: InternalError: V2 Multi-Stage query engine not enabled.)"}})
	rec.Observe(event.Event{Kind: event.KindDropped, SQL: `SELECT PERCENTILE("amount", 95) FROM "orders_OFFLINE"`, Reason: "no success in 3 probes (last: probe timed out)"})
	if s := f.status(t); !strings.HasPrefix(s.Decided, "warming; ") {
		t.Errorf("while warming: %q", s.Decided)
	}
	f.board.Update(func(s *Status) {
		s.Outcome, s.ExitReason = string(prober.OutcomeWarm), "floor of 300 successful probes reached; latency flat on agg_metrics"
	})
	want := "warm: floor of 300 successful probes reached; latency flat on agg_metrics; " +
		"no multi-stage probes: the broker's multi-stage engine is not enabled (error 450: InternalError: V2 Multi-Stage query engine not enabled.); " +
		"1 query dropped (percentile: no success in 3 probes (last: probe timed out)); " +
		"1 table leg probed with LIMIT 1 (clicks_REALTIME: no schema: HTTP 404)"
	s := f.status(t)
	if s.Decided != want {
		t.Errorf("decided\n got %q\nwant %q", s.Decided, want)
	}
	if len(s.DroppedQueries) != 1 || s.DroppedQueries[0].Shape != "percentile" {
		t.Errorf("dropped %+v, want the percentile shape named", s.DroppedQueries)
	}
}

// Custom queries that turn the multi-stage engine on probe it: the line does
// not say there are no multi-stage probes.
func TestStatusLineWithMultiStageCustomQueries(t *testing.T) {
	s := Status{Enabled: true, Run: 1, Queries: []string{"SET useMultistageEngine=true; SELECT 1 FROM t"},
		MultiStage: &prober.Engine{Found: "custom queries choose their engine"}}
	if got := s.decided(); got != "warming" {
		t.Errorf("decided %q, want warming alone", got)
	}
}

// A dropped query's log line says why in the operator's terms: the broker
// cannot compile it, it never succeeds, or the engine it needs is not enabled.
func TestDropLogSaysWhy(t *testing.T) {
	for reason, want := range map[string]string{
		"error 710: UnknownColumnError":                                        "generated probe dropped: the broker cannot compile it",
		judge.GiveUpPrefix + "3 probes (last: error 200: QueryExecutionError)": "generated probe dropped: it never succeeds",
		"error 450: InternalError: V2 " + pinot.EngineNotEnabledText + ".":     "generated probe dropped: the broker's multi-stage engine is not enabled",
	} {
		var buf bytes.Buffer
		o := NewLogObserver(slog.New(slog.NewJSONHandler(&buf, nil)))
		o.Observe(event.Event{Kind: event.KindPlanned, Plan: prober.Plan{Coverage: &selector.Coverage{}}})
		o.Observe(event.Event{Kind: event.KindDropped, SQL: "SELECT 1 FROM t", Reason: reason})
		if !strings.Contains(buf.String(), `"msg":"`+want+`"`) {
			t.Errorf("reason %q logged\n%s\nwant %q", reason, buf.String(), want)
		}
	}
}
