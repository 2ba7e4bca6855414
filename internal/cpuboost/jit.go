package cpuboost

import (
	"context"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/pkg/prober/event"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/prober/judge"
)

// CompileTimeSource reads the broker JVM's cumulative JIT compilation time
// (*jvmmetrics.Scraper).
type CompileTimeSource interface {
	CompileTime(ctx context.Context) (time.Duration, error)
}

// jitReader keeps its own JIT signal for the give-back: a run's signal ends with the run, and
// the compiler goes on after the gate opens. A failed reading keeps the last state; Failures
// in a row make the signal unavailable until a reading succeeds again.
type jitReader struct {
	src    CompileTimeSource
	rule   judge.JITRule
	tr     *judge.JITTracker
	note   string // why there is no source
	inARow int
	last   error
	state  event.JITState
}

func newJITReader(src CompileTimeSource, rule judge.JITRule, note string) *jitReader {
	return &jitReader{src: src, rule: rule, tr: judge.NewJITTracker(rule), note: note}
}

func (j *jitReader) read(ctx context.Context, now func() time.Time) jitView {
	if j.src == nil {
		return jitView{why: j.note}
	}
	rctx, cancel := context.WithTimeout(ctx, j.rule.Timeout)
	total, err := j.src.CompileTime(rctx)
	cancel()
	if err != nil {
		j.inARow++
		j.last = err
	} else {
		j.inARow = 0
		j.state = j.tr.Add(now(), total)
	}
	v := jitView{source: true, failing: j.inARow >= j.rule.Failures, state: j.state}
	if j.last != nil {
		v.why = j.last.Error()
	}
	return v
}
