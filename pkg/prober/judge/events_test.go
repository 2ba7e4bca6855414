package judge

import (
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/pkg/pinot"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/prober/event"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/prober/plan"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/sqltext"
)

// The judge's tests feed it Events, as the run does: a plan, then probes and
// readings, each at a clock value.

// t0 is the tests' clock at the run's start.
var t0 = time.Unix(1_700_000_000, 0)

// sqlOf is the query a test names name: the name itself, or on the
// multi-stage engine with its leading SET, as the plan writes such probes.
func sqlOf(name string, multiStage bool) string {
	if multiStage {
		return sqltext.WithMultiStage(name)
	}
	return name
}

// planned is the KindPlanned event of one query per name, each its own shape,
// the names in multiStage on that engine; sqls maps each name to its query.
func planned(names []string, multiStage map[string]bool) (e event.Event, sqls map[string]string) {
	p := plan.Plan{Custom: true}
	sqls = map[string]string{}
	for _, n := range names {
		sqls[n] = sqlOf(n, multiStage[n])
		p.Add(n, sqls[n])
	}
	return event.Event{Kind: event.KindPlanned, Plan: p}, sqls
}

// probed is the KindProbed event of one floor probe of sql.
func probed(sql string, latency time.Duration, ok bool) event.Event {
	res := pinot.Result{Class: pinot.Success, HTTPStatus: 200}
	if !ok {
		res = pinot.Result{Class: pinot.Transient, Message: "probe timed out"}
	}
	return event.Event{Kind: event.KindProbed, Step: event.StepProbe, SQL: sql, Result: res, Latency: latency}
}

// jitRead is the KindJITRead event of a cumulative compile time in ms.
func jitRead(totalMs int) event.Event {
	return event.Event{Kind: event.KindJITRead, CompileTime: time.Duration(totalMs) * time.Millisecond}
}
