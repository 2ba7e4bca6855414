package report

import (
	"errors"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/warmup-sidecar/warmup-sidecar/pkg/prober/event"
)

// A failed JIT reading keeps the last reading's figures in /status beside the
// error and the streak; a good reading clears them; giving up says so.
func TestRecorderKeepsTheLastJITReadingThroughFailures(t *testing.T) {
	f := newFixture(t)
	rec := Recorder{M: f.m, Board: f.board}
	now := time.Now()
	f.board.StartRun(now, now.Add(15*time.Second))
	rec.Observe(event.Event{Kind: event.KindJITRead, JIT: event.JITState{Known: true, Rate: 0.4, Peak: 0.5}})
	timeout := errors.New("reading JVM metrics from http://127.0.0.1:8008/metrics: context deadline exceeded")
	rec.Observe(event.Event{Kind: event.KindJITReadFailed, Err: timeout, InARow: 2})
	st := f.board.Snapshot(f.gate)
	if j := st.JIT; j == nil || j.CompileRate != 0.4 || j.FailedInARow != 2 || j.Error != timeout.Error() || j.Ignored {
		t.Errorf("after two failed reads: %+v, want the last rate, the streak and the error", st.JIT)
	}
	if n := testutil.CollectAndCount(f.m.compileRate); n != 1 {
		t.Errorf("compile rate series %d while the signal stands, want 1", n)
	}
	rec.Observe(event.Event{Kind: event.KindJITRead, JIT: event.JITState{Known: true, Rate: 0.01, Peak: 0.5}})
	if j := f.board.Snapshot(f.gate).JIT; j.FailedInARow != 0 || j.Error != "" {
		t.Errorf("a good reading left %+v", j)
	}
	rec.Observe(event.Event{Kind: event.KindJITUnavailable, Err: errors.New("6 readings in a row failed, the last: " + timeout.Error())})
	if j := f.board.Snapshot(f.gate).JIT; !j.Ignored || j.Error == "" {
		t.Errorf("given up: %+v, want ignored with the reason", j)
	}
}
