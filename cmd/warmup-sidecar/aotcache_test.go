package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/warmup-sidecar/warmup-sidecar/internal/fakepinot"
)

// With WARMUP_BROKER_AOT_LOG the binary reads the broker JVM's AOT log once the broker is
// healthy and reports it in /status and /metrics; the warmup goes on as without it.
func TestServeReportsTheBrokerAOTCache(t *testing.T) {
	used, err := os.ReadFile("../../internal/aotlog/testdata/used.log") // a real restart from its cache
	if err != nil {
		t.Fatal(err)
	}
	logFile := filepath.Join(t.TempDir(), "aot.log")
	if err := os.WriteFile(logFile, used, 0o644); err != nil {
		t.Fatal(err)
	}
	b := fakepinot.NewBroker(fakepinot.ThreeServers())
	c := fakepinot.NewController(fakepinot.ThreeServerTables()...)
	defer b.Close()
	defer c.Close()
	addr := freeAddr(t)
	sc := serveBinary(t, "WARMUP_BROKER_URL="+b.URL(), "WARMUP_CONTROLLER_URL="+c.URL(), "WARMUP_LISTEN_ADDR="+addr,
		"WARMUP_MIN_ITERATIONS=50", "WARMUP_CONCURRENCY=2", "WARMUP_BROKER_AOT_LOG="+logFile)
	waitReady(t, addr, sc.logs)
	_, body := httpGet("http://" + addr + "/status")
	var status struct {
		AOT *struct {
			State    string   `json:"state"`
			Evidence []string `json:"evidence"`
		} `json:"broker_aot_cache"`
	}
	if err := json.Unmarshal([]byte(body), &status); err != nil {
		t.Fatalf("/status: %v\n%s", err, body)
	}
	if status.AOT == nil || status.AOT.State != "used" || len(status.AOT.Evidence) != 2 ||
		!strings.Contains(status.AOT.Evidence[0], "Opened AOT cache") {
		t.Errorf("/status broker_aot_cache %+v, want used with its two lines:\n%s", status.AOT, body)
	}
	_, metrics := httpGet("http://" + addr + "/metrics")
	for _, want := range []string{`pinot_warmup_broker_aot_cache{state="used"} 1`, `pinot_warmup_broker_aot_cache{state="absent"} 0`} {
		if !strings.Contains(metrics, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	sc.stopBySIGTERM(t)
}
