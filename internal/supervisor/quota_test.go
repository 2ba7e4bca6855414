package supervisor

import (
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/warmup-sidecar/warmup-sidecar/pkg/prober"
)

// TestQuotaPacingIsWired: the supervisor hands its broker client to the prober as
// the quota source, so a table with a per-broker quota of 5 QPS is probed at 4/s
// (never above 5 in any second), and the pacing is logged once.
func TestQuotaPacingIsWired(t *testing.T) {
	opt := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, opt) })
	fb := newFaultBroker(t)
	var mu sync.Mutex
	var at []time.Time
	fb.broker.SetQuotaAnswer(func(typed string) (int, string) {
		if typed == "t_OFFLINE" {
			return 200, "5.0"
		}
		return 200, "0.0"
	})
	fb.broker.SetAnswer(func(sql string) (int, string) {
		if sql != prober.NoScatterSQL && sql != prober.MultiStageSQL { // no-scatter: no table's quota
			mu.Lock()
			at = append(at, time.Now())
			mu.Unlock()
		}
		return fb.succeed(sql)
	})
	fs := newFaultSup(t, fb.broker.URL(), fb.ctrl.URL(), Options{Enabled: true, Budget: 10 * time.Second, Rearm: true,
		Settings: prober.Settings{MinIterations: 9, Concurrency: 4, MaxTables: 5, ProbeTimeout: time.Second, NoScatterProbes: 8}}, nil)
	fs.run(t)
	took := waitFor(t, 8*time.Second, "warm", fs.sup.Gate.IsOpen)
	fs.stop(t)
	fb.close()
	if !strings.Contains(fs.logs.String(), `"msg":"pacing probes under the table's query quota","table":"t_OFFLINE","quota_qps":5,"probe_qps":4`) {
		t.Errorf("no pacing line in logs:\n%s", fs.logs.String())
	}
	mu.Lock()
	defer mu.Unlock()
	for i := range at {
		n := 0
		for j := i; j < len(at) && at[j].Sub(at[i]) < time.Second; j++ {
			n++
		}
		if n > 5 {
			t.Fatalf("%d probes within one second of %s, quota 5", n, at[i].Format("15:04:05.000"))
		}
	}
	// 9 probes 250 ms apart: 2 s at least.
	if took < 1900*time.Millisecond {
		t.Errorf("warm after %s: not paced", took)
	}
}
