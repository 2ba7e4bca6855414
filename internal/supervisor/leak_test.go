package supervisor

import (
	"context"
	"fmt"
	"github.com/warmup-sidecar/warmup-sidecar/internal/report"
	"io"
	"log/slog"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/warmup-sidecar/warmup-sidecar/internal/fakepinot"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/gatehttp"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/pinot"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/prober"
)

// instantBroker answers in-process, with no HTTP: every other probe a 429, the
// rest successes, so the round backoff never engages and a run reaches hundreds
// of thousands of probes in seconds. It isolates the sidecar's own per-probe state
// (prober, observers, metrics, /status, logs) from transport buffers.
type instantBroker struct{ n atomic.Int64 }

func (b *instantBroker) Query(context.Context, pinot.Query) pinot.Result {
	if b.n.Add(1)%2 == 0 {
		return pinot.Result{Class: pinot.Transient, HTTPStatus: 200, ErrorCode: 427,
			Message: "error 427: ServerNotRespondingError: 1 servers [Server_1] not responded"}
	}
	return pinot.Result{Class: pinot.Success, HTTPStatus: 200, ServersQueried: 1, ServersResponded: 1}
}

func (b *instantBroker) Tables(context.Context) ([]string, error) { return []string{"t", "u"}, nil }

func (b *instantBroker) RoutingTable(_ context.Context, t string) (pinot.RoutingTable, error) {
	return pinot.RoutingTable{t + "_OFFLINE": {"Server_" + t: {"seg"}}}, nil
}

func (b *instantBroker) Health(context.Context) (pinot.Health, error) {
	return pinot.Health{OK: true, Status: 200, Body: "OK"}, nil
}

// heapAfterGC is the live heap once garbage is collected.
func heapAfterGC() uint64 {
	var ms runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

func leakSupervisor(t *testing.T, b Broker, logs io.Writer) *Supervisor {
	m, gm := newMetrics(t)
	opts := Options{Enabled: true, Budget: time.Hour, Rearm: true,
		Settings: prober.Settings{MinIterations: 1 << 62, Concurrency: 16, MaxTables: 5, ProbeTimeout: time.Second}}
	return &Supervisor{
		Opts: opts, Broker: b, Gate: gatehttp.NewGate(gm), Metrics: m,
		Board:  report.NewStatusBoard(true, opts.Settings.MinIterations, opts.Budget, time.Now),
		Health: &gatehttp.BrokerHealth{Check: HealthCheck(b.Health), MaxAge: time.Second, Timeout: time.Second, Now: time.Now},
		Log:    slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
	}
}

// quietHeap is the smallest of three after-GC samples: with 16 probes in flight a
// single sample carries up to a megabyte of request and response buffers.
func quietHeap() uint64 {
	h := heapAfterGC()
	for range 2 {
		time.Sleep(20 * time.Millisecond)
		h = min(h, heapAfterGC())
	}
	return h
}

// sample is the live heap at a probe count.
type sample struct {
	probes int64
	heap   uint64
}

// measureGrowth runs sup and samples the live heap three times: once `first`
// probes are done, once the count has grown fivefold (or after 3 s), and once
// tenfold (or after 6 s).
func measureGrowth(t *testing.T, sup *Supervisor, probes func() int64, first int64) [3]sample {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- sup.Run(ctx) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("supervisor: %v", err)
		}
	}()
	waitFor(t, 30*time.Second, fmt.Sprintf("%d probes", first), func() bool { return probes() >= first })
	var out [3]sample
	out[0] = sample{probes(), quietHeap()}
	for i, grow := range []int64{5, 10} {
		end := time.Now().Add(3 * time.Second)
		for probes() < grow*out[0].probes && time.Now().Before(end) {
			time.Sleep(50 * time.Millisecond)
		}
		out[i+1] = sample{probes(), quietHeap()}
	}
	return out
}

// checkFlat fails when the live heap grew by more than slack from the first
// sample to the last and grew in both halves (by more than a quarter of slack
// each): state kept per probe grows with every probe, while one sample taken
// with more buffers in flight than the others (a busy machine) does not repeat.
func checkFlat(t *testing.T, what string, s [3]sample, slack uint64) {
	t.Helper()
	grew := func(a, b sample) int64 { return int64(b.heap) - int64(a.heap) }
	per := float64(grew(s[0], s[2])) / float64(s[2].probes-s[0].probes)
	t.Logf("%s: live heap %d KiB at %d probes, %d KiB at %d, %d KiB at %d (%+.3f bytes/probe)",
		what, s[0].heap>>10, s[0].probes, s[1].heap>>10, s[1].probes, s[2].heap>>10, s[2].probes, per)
	if s[2].probes < 3*s[0].probes {
		t.Fatalf("only %d → %d probes: too few to tell a per-probe leak", s[0].probes, s[2].probes)
	}
	q := int64(slack / 4)
	if grew(s[0], s[2]) > int64(slack) && grew(s[0], s[1]) > q && grew(s[1], s[2]) > q {
		t.Errorf("live heap grew %d KiB over %d probes (%.2f bytes/probe), in both halves: state kept per probe",
			grew(s[0], s[2])>>10, s[2].probes-s[0].probes, per)
	}
}

// TestLeakHeapFlatOverLongWarmup: the live heap does not grow with the probe count.
// A warmup against a broker answering 427 (servers not responding) to every other probe runs for seconds
// at concurrency 16 (debug logging on); the heap after GC is compared at two
// points hundreds of thousands of probes apart.
func TestLeakHeapFlatOverLongWarmup(t *testing.T) {
	opt := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, opt) })
	b := &instantBroker{}
	sup := leakSupervisor(t, b, io.Discard)
	s := measureGrowth(t, sup, b.n.Load, 5_000)
	// Keeping even one small string per probe would add ≥ 16 bytes × ≥ 40,000.
	checkFlat(t, "in-process", s, 512<<10)
}

// TestLeakHeapFlatOverHTTPGarbage does the same over HTTP, against a broker that
// answers every other probe with an HTML error page and the rest with successes:
// client transport, response bodies and classification included.
func TestLeakHeapFlatOverHTTPGarbage(t *testing.T) {
	opt := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, opt) })
	fb := newFaultBroker(t)
	var n atomic.Int64
	page := "<html><head><title>503 Service Temporarily Unavailable</title></head><body>" + fmt.Sprintf("%0500d", 0) + "</body></html>"
	okBody := fakepinot.OK(1)
	fb.broker.SetAnswer(func(string) (int, string) {
		if n.Add(1)%2 == 0 {
			return 200, page
		}
		return 200, okBody
	})
	hc := pinot.DefaultHTTPClient()
	client := pinot.New(pinot.Options{BrokerURL: fb.broker.URL(), ControllerURL: fb.ctrl.URL(), HTTPClient: hc})
	sup := leakSupervisor(t, client, io.Discard)
	s := measureGrowth(t, sup, fb.probes, 1_000)
	hc.CloseIdleConnections()
	fb.close()
	checkFlat(t, "HTTP", s, 1<<20)
}
