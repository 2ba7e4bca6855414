package prober

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/internal/fakepinot"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/pinot"
)

// A broker with a per-second quota and no queryQuota endpoint (Pinot before
// 1.3): the prober learns the pace from the 429s instead of sending most probes
// into them.
func TestQuotaRefusalsAreFewWithoutAQuotaEndpoint(t *testing.T) {
	const qps = 20
	var mu sync.Mutex
	var window time.Time
	var used int
	mux := http.NewServeMux()
	mux.HandleFunc("GET /debug/routingTable/{t}", func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte(`{"orders_OFFLINE":{"Server_1":["s0"]}}`))
	})
	mux.HandleFunc("POST /query/sql", func(w http.ResponseWriter, _ *http.Request) {
		mu.Lock()
		now := time.Now()
		if now.Sub(window) >= time.Second {
			window, used = now, 0
		}
		used++
		over := used > qps
		mu.Unlock()
		if over {
			_, _ = w.Write([]byte(fakepinot.Error(429, "QuotaExceededError", "exceeds query quota for table: orders_OFFLINE")))
			return
		}
		_, _ = w.Write([]byte(fakepinot.OK(1)))
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	cl := pinot.New(pinot.Options{BrokerURL: srv.URL})
	p := &Prober{Broker: cl, Catalog: cl, Settings: Settings{
		MinIterations: 80, MaxTables: 5, Concurrency: 16, ProbeTimeout: time.Second, Tables: []string{"orders"}},
		Observer: nobody}
	rep := p.Run(context.Background(), time.Now().Add(10*time.Second))
	t.Logf("%d ok, %d refused in %s", rep.Succeeded, rep.Failed, rep.Duration)
	if rep.Outcome != OutcomeWarm {
		t.Fatalf("outcome %s", rep.Outcome)
	}
	if rep.Failed > rep.Succeeded/2 {
		t.Fatalf("%d refused for %d successes: the rounds did not back off under the quota", rep.Failed, rep.Succeeded)
	}
}
