package gatehttp

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

type fixture struct {
	reg     *prometheus.Registry
	m       *Metrics
	gate    *Gate
	healthy atomic.Bool
	checks  atomic.Int64
	clock   *fakeClock // the broker-health cache's clock
	srv     *httptest.Server
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	f := &fixture{reg: prometheus.NewRegistry(), clock: newFakeClock()}
	m, err := NewMetrics(f.reg)
	if err != nil {
		t.Fatal(err)
	}
	f.m = m
	f.gate = NewGate(m)
	h := &BrokerHealth{
		Check: func(context.Context) (bool, string, error) {
			f.checks.Add(1)
			if f.healthy.Load() {
				return true, "", nil
			}
			return false, "broker /health answered HTTP 503: Pinot broker status is STARTING", nil
		},
		MaxAge: time.Second, Timeout: time.Second, Now: f.clock.Now,
	}
	f.srv = httptest.NewServer((&Handlers{Gate: f.gate, Status: f.status, Health: h, Gatherer: f.reg}).Mux())
	t.Cleanup(f.srv.Close)
	return f
}

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func TestReadyzNeedsOpenGateAndHealthyBroker(t *testing.T) {
	f := newFixture(t)
	code, body := get(t, f.srv.URL+"/readyz")
	if code != 503 || !strings.Contains(body, "waiting_for_broker") {
		t.Fatalf("closed gate: %d %q", code, body)
	}
	f.gate.SetPhase(PhaseWarming, "warming: floor 100")
	code, body = get(t, f.srv.URL+"/readyz")
	if code != 503 || !strings.Contains(body, "warming") {
		t.Fatalf("warming: %d %q", code, body)
	}
	f.gate.Open()
	f.gate.SetPhase(PhaseWarm, "warm")
	code, body = get(t, f.srv.URL+"/readyz")
	if code != 503 || !strings.Contains(body, "STARTING") {
		t.Fatalf("open gate, unhealthy broker: %d %q, want 503 with the broker's reason", code, body)
	}
	f.healthy.Store(true)
	f.clock.Advance(time.Second) // let the cached unhealthy answer age out
	if code, body = get(t, f.srv.URL+"/readyz"); code != 200 {
		t.Fatalf("open gate, healthy broker: %d %q", code, body)
	}
	f.gate.SetPhase(PhaseStopping, "stopping")
	if code, _ = get(t, f.srv.URL+"/readyz"); code != 503 {
		t.Fatalf("stopping: %d, want 503", code)
	}
	if code, _ = get(t, f.srv.URL+"/livez"); code != 200 {
		t.Fatalf("livez while stopping: %d, want 200", code)
	}
}

func TestReadyzCachesBrokerHealthForOneSecond(t *testing.T) {
	f := newFixture(t)
	f.healthy.Store(true)
	f.gate.Open()
	for range 50 {
		get(t, f.srv.URL+"/readyz")
	}
	if n := f.checks.Load(); n != 1 {
		t.Fatalf("50 readiness checks within a second made %d broker /health calls, want 1", n)
	}
}

func TestBrokerHealthUnreachable(t *testing.T) {
	h := &BrokerHealth{
		Check:  func(context.Context) (bool, string, error) { return false, "", errors.New("connection refused") },
		MaxAge: time.Second, Timeout: time.Second, Now: time.Now,
	}
	ok, why := h.Get(context.Background())
	if ok || !strings.Contains(why, "unreachable") {
		t.Fatalf("got %v %q", ok, why)
	}
}

func TestGateMirrorsGauges(t *testing.T) {
	f := newFixture(t)
	if v := testutil.ToFloat64(f.m.Warm); v != 0 {
		t.Fatalf("warm gauge at start = %v", v)
	}
	f.gate.SetPhase(PhaseWarming, "x")
	if v := testutil.ToFloat64(f.m.phase.WithLabelValues("warming")); v != 1 {
		t.Fatalf("phase{warming} = %v", v)
	}
	if v := testutil.ToFloat64(f.m.phase.WithLabelValues("waiting_for_broker")); v != 0 {
		t.Fatalf("phase{waiting_for_broker} = %v after leaving it", v)
	}
	f.gate.Open()
	if v := testutil.ToFloat64(f.m.Warm); v != 1 {
		t.Fatalf("warm gauge after open = %v", v)
	}
}

// Stop is final: a supervisor winding down can neither reopen the gate nor move
// it out of phase stopping.
func TestGateStopIsFinal(t *testing.T) {
	f := newFixture(t)
	f.gate.Open()
	f.gate.Stop("stopping: SIGTERM")
	f.gate.Open()
	f.gate.SetPhase(PhaseWarm, "warm")
	if f.gate.IsOpen() || f.gate.Phase() != PhaseStopping {
		t.Fatalf("after Stop: open=%v phase=%s", f.gate.IsOpen(), f.gate.Phase())
	}
	if v := testutil.ToFloat64(f.m.Warm); v != 0 {
		t.Errorf("broker_warm = %v after Stop", v)
	}
	if code, body := get(t, f.srv.URL+"/readyz"); code != 503 || !strings.Contains(body, "stopping") {
		t.Errorf("/readyz after Stop: %d %q", code, body)
	}
}

// status is the fixture's /status document: the verdict it is handed and the
// gate's phase, as a sidecar's would carry them.
func (f *fixture) status(ready bool) any {
	return struct {
		Phase Phase `json:"phase"`
		Ready bool  `json:"ready"`
	}{f.gate.Phase(), ready}
}

// /status serves the document the sidecar supplies, indented JSON, with the same
// readiness verdict /readyz gives.
func TestStatusServesTheSuppliedDocumentWithTheReadyzVerdict(t *testing.T) {
	f := newFixture(t)
	resp, err := http.Get(f.srv.URL + "/status")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); resp.StatusCode != 200 || ct != "application/json" {
		t.Fatalf("/status: %d %q", resp.StatusCode, ct)
	}
	if want := "{\n  \"phase\": \"waiting_for_broker\",\n  \"ready\": false\n}\n"; string(b) != want {
		t.Errorf("closed gate: /status %q, want %q", b, want)
	}
	f.healthy.Store(true)
	f.gate.Open()
	f.gate.SetPhase(PhaseWarm, "warm")
	if _, body := get(t, f.srv.URL+"/status"); !strings.Contains(body, `"ready": true`) || !strings.Contains(body, `"phase": "warm"`) {
		t.Errorf("open gate, healthy broker: /status %s", body)
	}
}

func TestStatusAbsentWithoutADocument(t *testing.T) {
	srv := httptest.NewServer((&Handlers{Gate: NewGate(nil), Gatherer: prometheus.NewRegistry()}).Mux())
	defer srv.Close()
	if code, _ := get(t, srv.URL+"/status"); code != http.StatusNotFound {
		t.Fatalf("/status with no document: %d, want 404", code)
	}
}
