package prober

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/internal/fakepinot"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/pinot"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/prober/event"
)

// nobody hears a run's events.
var nobody = event.ObserverFunc(func(event.Event) {})

// BenchmarkProbeLoop measures the sidecar's own cost per probe: a full run with
// floor b.N against a loopback broker that answers a canned Pinot success at once
// (no JSON work on its side beyond writing bytes). probes/s is wall-clock over the
// whole run, planning included; allocs/op is per probe (client and server side,
// since both live in this process).
func BenchmarkProbeLoop(b *testing.B) {
	body := []byte(fakepinot.OK(2))
	routing := []byte(`{"orders_OFFLINE":{"Server_1":["s0"]},"clicks_OFFLINE":{"Server_2":["s1"]}}`)
	mux := http.NewServeMux()
	mux.HandleFunc("POST /query/sql", func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body)
	})
	mux.HandleFunc("GET /debug/routingTable/{t}", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write(routing) })
	srv := httptest.NewServer(mux)
	defer srv.Close()
	client := pinot.New(pinot.Options{BrokerURL: srv.URL})

	for _, conc := range []int{1, 8} {
		b.Run(fmt.Sprintf("concurrency=%d", conc), func(b *testing.B) {
			p := &Prober{
				Broker:  client,
				Catalog: client, Settings: Settings{MinIterations: b.N, MaxTables: 5, Concurrency: conc, ProbeTimeout: 5 * time.Second, Tables: []string{"orders", "clicks"}},
				Observer: nobody,
			}
			b.ReportAllocs()
			b.ResetTimer()
			start := time.Now()
			rep := p.Run(context.Background(), time.Now().Add(10*time.Minute))
			elapsed := time.Since(start)
			b.StopTimer()
			if rep.Outcome != OutcomeWarm {
				b.Fatalf("outcome %s: %v", rep.Outcome, rep.Err)
			}
			b.ReportMetric(float64(rep.Succeeded)/elapsed.Seconds(), "probes/s")
		})
	}
}
