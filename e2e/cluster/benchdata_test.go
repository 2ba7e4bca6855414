package cluster

import (
	"bufio"
	"bytes"
	"strconv"
	"strings"
	"testing"

	"github.com/warmup-sidecar/warmup-sidecar/e2e/coldstart"
)

// The study's named mixes filter on what coldstart.BenchData says bench_events holds; the
// rows this harness loads must bear it out, or a mix would measure empty answers.
func TestBenchRowsHoldWhatTheStudyMixesFilterOn(t *testing.T) {
	d := coldstart.BenchData
	if rows := (Options{}).withDefaults().BenchRows; rows != d.Events {
		t.Errorf("default bench rows %d, the mixes assume %d", rows, d.Events)
	}
	lastTs := d.EpochMs + int64(d.Events-1)*1000
	if d.NowMs > lastTs || d.NowMs < lastTs-86_400_000 {
		t.Errorf("the mixes' now %d is not inside the last day of the data (last ts %d)", d.NowMs, lastTs)
	}
	const n = 20_000 // enough rows for every value to turn up
	var buf bytes.Buffer
	w := bufio.NewWriter(&buf)
	for i := range n {
		benchRow(w, i)
	}
	w.Flush()
	seen := map[string]bool{}
	for i, line := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		f := strings.Split(line, ",") // event_id,user_id,country,device,event_type,latency_ms,amount,ts
		id, _ := strconv.Atoi(f[0])
		user, _ := strconv.Atoi(f[1])
		ts, _ := strconv.ParseInt(f[7], 10, 64)
		if id != i || user < 0 || user >= d.Users || ts != d.EpochMs+int64(i)*1000 {
			t.Fatalf("row %d = %q: want event_id %d, user_id in [0, %d), ts %d", i, line, i, d.Users, d.EpochMs+int64(i)*1000)
		}
		seen["country="+f[2]], seen["device="+f[3]], seen["event_type="+f[4]] = true, true, true
	}
	for col, vals := range map[string][]string{"country": d.Countries, "device": d.Devices, "event_type": d.EventTypes} {
		for _, v := range vals {
			if !seen[col+"="+v] {
				t.Errorf("no row of the first %d has %s = %q", n, col, v)
			}
		}
	}
}
