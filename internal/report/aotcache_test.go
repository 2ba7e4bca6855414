package report

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/warmup-sidecar/warmup-sidecar/internal/aotlog"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/gatehttp"
)

// aotStatesOf is the gauge's value per state.
func aotStatesOf(t *testing.T, r *AOTCacheReport) map[string]float64 {
	t.Helper()
	out := map[string]float64{}
	for _, s := range aotStates() {
		out[s] = testutil.ToFloat64(r.state.WithLabelValues(s))
	}
	return out
}

func wantOnly(t *testing.T, r *AOTCacheReport, state string) {
	t.Helper()
	for s, v := range aotStatesOf(t, r) {
		if want := map[bool]float64{true: 1, false: 0}[s == state]; v != want {
			t.Errorf("pinot_warmup_broker_aot_cache{state=%q} = %g, want %g", s, v, want)
		}
	}
}

// Each broker start reads the log once; /status and the metric say what the latest said.
func TestAOTCacheReportFollowsEachBrokerStart(t *testing.T) {
	used, err := os.ReadFile("../aotlog/testdata/used.log") // a real restart from its cache
	if err != nil {
		t.Fatal(err)
	}
	logs := []struct {
		body []byte
		err  error
	}{
		{used, nil},
		{[]byte("[info][aot] Specified AOT cache not found (/var/lib/pinot-aot/new-image.aot)\n"), nil},
		{nil, errors.New("open /var/log/pinot-aot/aot.log: permission denied")},
	}
	var reads []string
	read := func(path string) ([]byte, error) {
		reads = append(reads, path)
		l := logs[len(reads)-1]
		return l.body, l.err
	}
	board := NewStatusBoard(true, 10, time.Second, time.Now)
	gate := gatehttp.NewGate(nil)
	reg := prometheus.NewRegistry()
	r, err := NewAOTCacheReport("/var/log/pinot-aot/aot.log", read, board, reg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	wantOnly(t, r, "") // every series exported, all 0, before the first start
	if s := board.Snapshot(gate); s.BrokerAOTCache != nil {
		t.Errorf("broker_aot_cache %+v before the broker started, want none", s.BrokerAOTCache)
	}

	r.BrokerStarted(context.Background())
	s := board.Snapshot(gate)
	if s.BrokerAOTCache == nil || s.BrokerAOTCache.State != aotlog.Used || len(s.BrokerAOTCache.Evidence) == 0 ||
		!strings.Contains(s.BrokerAOTCache.Evidence[0], "Opened AOT cache") {
		t.Fatalf("broker_aot_cache %+v, want used with the opened line", s.BrokerAOTCache)
	}
	wantOnly(t, r, aotlog.Used)
	// A run starting keeps what the broker's start said.
	board.StartRun(time.Now(), time.Now().Add(time.Second))
	if s := board.Snapshot(gate); s.BrokerAOTCache == nil || s.BrokerAOTCache.State != aotlog.Used {
		t.Errorf("after StartRun: %+v, want used kept", s.BrokerAOTCache)
	}

	r.BrokerStarted(context.Background())
	if s := board.Snapshot(gate); s.BrokerAOTCache.State != aotlog.Absent {
		t.Errorf("second start: %+v, want absent", s.BrokerAOTCache)
	}
	wantOnly(t, r, aotlog.Absent)

	r.BrokerStarted(context.Background())
	s = board.Snapshot(gate)
	if s.BrokerAOTCache.State != AOTUnreadable || !strings.Contains(s.BrokerAOTCache.Error, "permission denied") || len(s.BrokerAOTCache.Evidence) != 0 {
		t.Errorf("third start: %+v, want unreadable with the error", s.BrokerAOTCache)
	}
	wantOnly(t, r, AOTUnreadable)
	if len(reads) != 3 || reads[0] != "/var/log/pinot-aot/aot.log" {
		t.Errorf("reads %q, want the configured path once per start", reads)
	}
	doc, _ := json.Marshal(s)
	if !strings.Contains(string(doc), `"broker_aot_cache":{"state":"unreadable","error":"reading the broker JVM's AOT log /var/log/pinot-aot/aot.log: open /var/log/pinot-aot/aot.log: permission denied"}`) {
		t.Errorf("/status: %s", doc)
	}
}

// Without WARMUP_BROKER_AOT_LOG there is no report: /status has no broker_aot_cache field.
func TestNoAOTCacheFieldWithoutTheLog(t *testing.T) {
	board := NewStatusBoard(true, 10, time.Second, time.Now)
	doc, err := json.Marshal(board.Snapshot(gatehttp.NewGate(nil)))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(doc), "broker_aot_cache") {
		t.Errorf("/status names broker_aot_cache without the log: %s", doc)
	}
}
