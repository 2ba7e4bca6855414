package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"

	"github.com/warmup-sidecar/warmup-sidecar/pkg/pinot"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/prober"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/prober/event"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/prober/plan"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/selector"
)

// The golden files were written by the same feed through the observers as
// they were before the single event type (one method per event then), so
// the log lines, /status and the metrics stay byte-for-byte what they were.
func TestEveryEventKindReportsAsBefore(t *testing.T) {
	logs, status, metrics := goldenRun(t, func(o event.Observer) {
		probed := func(sql, step string, res pinot.Result, lat time.Duration, mse bool) {
			o.Observe(event.Event{Kind: event.KindProbed, SQL: sql, Step: step, Result: res, Latency: lat, MultiStage: mse})
		}
		o.Observe(event.Event{Kind: event.KindPlanRetry, Err: errors.New("controller answered 503")})
		o.Observe(event.Event{Kind: event.KindPlanRetry, Err: errors.New("controller answered 503")})
		o.Observe(event.Event{Kind: event.KindPlanned, Plan: goldenPlan()})
		o.Observe(event.Event{Kind: event.KindEngineFound, Engine: prober.Engine{MultiStage: true, Found: "the broker serves the multi-stage engine"}})
		o.Observe(event.Event{Kind: event.KindEngineFloors, Floors: event.Floors{MultiStage: 12, SingleStage: 88}})
		o.Observe(event.Event{Kind: event.KindPaced, Table: "orders_OFFLINE", Quota: 20, Rate: 16})
		probed(prober.NoScatterSQL, event.StepNoScatter, pinot.Result{Class: pinot.Success}, time.Millisecond, false)
		probed(goldenSSE, event.StepProbe, pinot.Result{Class: pinot.Success}, 3*time.Millisecond, false)
		probed(goldenMSE, event.StepProbe, pinot.Result{Class: pinot.Transient, Message: "probe timed out"}, 1200*time.Millisecond, true)
		probed(goldenMSE, event.StepProbe, pinot.Result{Class: pinot.Success}, 900*time.Millisecond, true)
		probed(goldenL1, event.StepProbe, pinot.Result{Class: pinot.Unauthorized, Message: "HTTP 401"}, 2*time.Millisecond, false)
		probed(goldenL1, event.StepProbe, pinot.Result{Class: pinot.Unauthorized, Message: "HTTP 401"}, 2*time.Millisecond, false)
		o.Observe(event.Event{Kind: event.KindShapeWindow, Shape: event.ShapeState{Shape: "agg", Probes: 10, Latest: 3 * time.Millisecond, Best: 3 * time.Millisecond, InARow: 1}})
		o.Observe(event.Event{Kind: event.KindShapeWindow, Shape: event.ShapeState{Shape: "mse_agg", Probes: 10, Latest: 900 * time.Millisecond, Best: 800 * time.Millisecond, Pooled: true}})
		o.Observe(event.Event{Kind: event.KindJITRead, JIT: event.JITState{Known: true, Rate: 0.25, Peak: 0.5, QuietInARow: 1}})
		o.Observe(event.Event{Kind: event.KindJITReadFailed, Err: errors.New("context deadline exceeded"), InARow: 2})
		o.Observe(event.Event{Kind: event.KindJITUnavailable, Err: goldenErr})
		o.Observe(event.Event{Kind: event.KindEngineWarm, MultiStage: false, Lent: 1})
		o.Observe(event.Event{Kind: event.KindDropped, SQL: goldenMSE, Reason: "no success in 3 probes (last: probe timed out)"})
		o.Observe(event.Event{Kind: event.KindDropped, SQL: goldenSSE, Reason: "error 450: InternalError: V2 " + pinot.EngineNotEnabledText + "."})
		o.Observe(event.Event{Kind: event.KindDropped, SQL: goldenL1, Reason: "error 710: Unknown column"})
	})
	for _, c := range []struct{ file, got string }{
		{"testdata/events.log.golden", logs},
		{"testdata/events.status.golden", status},
		{"testdata/events.metrics.golden", metrics},
	} {
		want, err := os.ReadFile(c.file)
		if err != nil {
			t.Fatal(err)
		}
		if c.got != string(want) {
			t.Errorf("%s differs:\n got:\n%s\nwant:\n%s", c.file, c.got, want)
		}
	}
}

// goldenRun feeds every kind of event through the recorder and the log
// observer, as the supervisor wires them, and returns the log lines, the
// /status JSON and the run metrics' exposition.
func goldenRun(t *testing.T, feed func(event.Observer)) (logs, status, metrics string) {
	t.Helper()
	at := time.Date(2026, 12, 3, 10, 0, 0, 0, time.UTC)
	clock := func() time.Time { return at }
	f := newFixture(t) // its collectors; the board here has a fixed clock
	board := NewStatusBoard(true, 100, 15*time.Second, clock)
	board.StartRun(at, at.Add(15*time.Second))
	var buf bytes.Buffer
	log := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug,
		ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey {
				return slog.Attr{}
			}
			return a
		}}))
	feed(event.Observers{Recorder{M: f.m, Board: board}, NewLogObserver(log)})
	js, err := json.MarshalIndent(board.Snapshot(f.gate), "", " ")
	if err != nil {
		t.Fatal(err)
	}
	var mb strings.Builder
	mfs, err := f.reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if _, err := expfmt.MetricFamilyToText(&mb, mf); err != nil {
			t.Fatal(err)
		}
	}
	return buf.String(), string(js), mb.String()
}

var (
	goldenSSE = `SELECT "a" FROM "orders_OFFLINE" WHERE "b" = 1`
	goldenMSE = `SET useMultistageEngine=true; SELECT "a" FROM "orders_OFFLINE" WHERE "b" = 1`
	goldenL1  = plan.DefaultProbe("orders_REALTIME")
	goldenErr = errors.New("reading JVM metrics from http://127.0.0.1:8008/metrics: HTTP 404")
)

func goldenPlan() prober.Plan {
	return prober.Plan{
		Tables:     []selector.Table{{Name: "orders"}},
		Queries:    []string{goldenSSE, goldenMSE, goldenL1},
		Shapes:     []string{"agg", "mse_agg", "limit1"},
		Coverage:   &selector.Coverage{Universe: []string{"Server_1", "Server_2"}, Uncovered: []string{"Server_2"}},
		Fallbacks:  map[string]string{"orders_REALTIME": "no schema: HTTP 404"},
		Dropped:    []string{"gone"},
		Capped:     []string{"extra"},
		CatalogErr: "controller answered 503",
		Engine:     prober.Engine{MultiStage: true, Found: "not known yet"},
	}
}
