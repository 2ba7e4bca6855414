package main

import (
	"strings"
	"testing"

	"github.com/warmup-sidecar/warmup-sidecar/internal/fakepinot"
	probeplan "github.com/warmup-sidecar/warmup-sidecar/pkg/prober/plan"
)

// A leg whose sample fails (here a partial answer from a realtime leg) is
// probed with LIMIT 1, never with shapes lacking the sample's filter and time
// bound; the other legs keep their shapes, /status says why, and the pod
// becomes Ready on the run's evidence (fail-closed).
func TestServeFailedSampleKeepsTheLegBounded(t *testing.T) {
	const leg = "events_REALTIME"
	b := fakepinot.NewBroker(fakepinot.ThreeServers())
	c := fakepinot.NewController(fakepinot.ThreeServerTables()...)
	defer b.Close()
	defer c.Close()
	b.SetSampleAnswer(func(typed string, n int) (int, string) {
		if typed == leg && n > 1 {
			return 200, fakepinot.Partial(2, 1)
		}
		return 200, fakepinot.RowsAnswer(fakepinot.DefaultSchema(fakepinot.RawName(typed)), n, 1)
	})
	addr, _ := serveUntilReady(t, "WARMUP_BROKER_URL="+b.URL(), "WARMUP_CONTROLLER_URL="+c.URL(),
		"WARMUP_FAIL_CLOSED=true", "WARMUP_BUDGET=60s")
	st := status(t, addr)
	if st.Outcome != "warm" || !strings.Contains(st.ExitReason, "latency flat") {
		t.Fatalf("outcome %q (%s), want warm on the evidence", st.Outcome, st.ExitReason)
	}
	if why := st.ShapeFallbacks[leg]; !strings.Contains(why, "sample failed") || !strings.Contains(why, "partial answer") {
		t.Errorf("shape_fallbacks %q, want %s kept on LIMIT 1 for its failed sample", st.ShapeFallbacks, leg)
	}
	shaped := false
	for _, q := range st.Queries {
		if strings.Contains(q, `"`+leg+`"`) && q != probeplan.DefaultProbe(leg) {
			t.Errorf("a probe of %s without its sample: %s", leg, q)
		}
		shaped = shaped || strings.Contains(q, `FROM "events_OFFLINE" WHERE`)
	}
	if !shaped {
		t.Errorf("events_OFFLINE lost its shapes: %q", st.Queries)
	}
}
