package main

import (
	"bufio"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// procKB reads a "VmRSS:"-style line (kB) of /proc/<pid>/status.
func procKB(t *testing.T, pid int, field string) int64 {
	t.Helper()
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), field+":"); ok {
			n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return n
		}
	}
	t.Fatalf("%s not in /proc/%d/status", field, pid)
	return 0
}

// TestLeakEndlessAnswerMemoryBounded: a broker (or a proxy in front of it) that
// answers 200 and then streams without end, at loopback speed, to 16 probes at
// once. The sidecar must keep its memory bounded, count the probes failed and
// open the gate by the budget.
func TestLeakEndlessAnswerMemoryBounded(t *testing.T) {
	f := newPinotFake(t)
	chunk := []byte(strings.Repeat(`{"resultTable":{"rows":[[1,"abcdefghijklmnopqrstuvwxyz"]]},`, 1000))
	f.setQuery(func(w http.ResponseWriter, r *http.Request, _ string) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(200)
		for r.Context().Err() == nil {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	})
	s := startSidecar(t, "WARMUP_BROKER_URL="+f.srv.URL, "WARMUP_TABLES=orders", "WARMUP_BUDGET=4s",
		"WARMUP_PROBE_TIMEOUT=3s", "WARMUP_CONCURRENCY=16", "WARMUP_MIN_ITERATIONS=100")
	pid := s.cmd.Process.Pid
	var peak int64
	took := s.waitFor(t, 8*time.Second, "/readyz 200", func() bool {
		peak = max(peak, procKB(t, pid, "VmRSS"))
		code, _ := httpGet(s.url("/readyz"))
		return code == 200
	})
	hwm := procKB(t, pid, "VmHWM")
	st, body := s.status(t)
	t.Logf("gate open after %s; RSS peak sampled %d MiB, VmHWM %d MiB; /status %d ok / %d failed, last error %q",
		took.Round(time.Millisecond), peak>>10, hwm>>10, st.OK, st.Failed, st.LastError)
	if st.OK != 0 || st.Outcome != "budget_expired" {
		t.Errorf("/status %s", body)
	}
	if took > 5*time.Second {
		t.Errorf("gate opened %s after start, want within budget 4s + 1s", took)
	}
	if hwm > 128<<10 { // the chart's memory limit
		t.Errorf("sidecar peaked at %d MiB RSS reading endless answers: answer size is not bounded", hwm>>10)
	}
}
