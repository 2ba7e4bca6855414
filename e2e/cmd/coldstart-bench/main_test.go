package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/e2e/coldstart"
)

// fakeBroker is healthy after healthyAfter, then answers queries slowly for `cold`, then fast.
func fakeBroker(t *testing.T, healthyAfter, cold time.Duration) *httptest.Server {
	start := time.Now()
	var healthyAt atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/health":
			if time.Since(start) < healthyAfter {
				http.Error(w, "Pinot broker status is STARTING", http.StatusServiceUnavailable)
				return
			}
			healthyAt.CompareAndSwap(0, time.Now().UnixNano())
			fmt.Fprint(w, "OK")
		case "/query/sql":
			d := 3 * time.Millisecond
			if h := healthyAt.Load(); h == 0 || time.Since(time.Unix(0, h)) < cold {
				d = 400 * time.Millisecond
			}
			select {
			case <-time.After(d):
			case <-r.Context().Done():
				return
			}
			fmt.Fprintf(w, `{"exceptions":[],"numServersQueried":2,"numServersResponded":2,"timeUsedMs":%d,"resultTable":{"rows":[[1]]}}`, d.Milliseconds())
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestRunWaitsForReadyThenRecordsARestart(t *testing.T) {
	srv := fakeBroker(t, 300*time.Millisecond, 400*time.Millisecond)
	out := t.TempDir()
	args := []string{"run", "--broker", srv.URL, "--rate", "100", "--timeout", "250ms",
		"--cold", "300ms", "--warm-start", "800ms", "--warm-end", "1200ms", "--out", out, "--pinot-version", "test"}
	var stdout, stderr bytes.Buffer
	begin := time.Now()
	if code := run(args, &stdout, &stderr); code != exitOK {
		t.Fatalf("exit %d; stderr:\n%s", code, stderr.String())
	}
	if took := time.Since(begin); took < 1500*time.Millisecond {
		t.Errorf("took %s: the load must start only once /health is 200 (0.3 s) and run 1.2 s", took)
	}
	s, err := coldstart.ReadStudy(filepath.Join(out, "study.json"))
	if err != nil {
		t.Fatal(err)
	}
	rs := s.Arms[coldstart.ArmOff].Restarts
	if len(rs) != 1 {
		t.Fatalf("off restarts = %d, want 1", len(rs))
	}
	if r := rs[0]; r.ColdCancelRate < 0.9 || r.WarmCancelRate != 0 || r.WarmupSeconds != 0 {
		t.Errorf("restart = cold cancel %.2f (want ≥ 0.9), warm cancel %.2f (want 0), warmup %v (want 0)",
			r.ColdCancelRate, r.WarmCancelRate, r.WarmupSeconds)
	}
	// A second run appends to the same arm.
	srv2 := fakeBroker(t, 0, 0)
	args[2] = srv2.URL
	if code := run(args, &stdout, &stderr); code != exitOK {
		t.Fatalf("second run: exit %d; stderr:\n%s", code, stderr.String())
	}
	s, _ = coldstart.ReadStudy(filepath.Join(out, "study.json"))
	if n := len(s.Arms[coldstart.ArmOff].Restarts); n != 2 {
		t.Errorf("after a second run: %d restarts, want 2", n)
	}
	for _, f := range []string{"study.md", "off-1.png", "off-2.png", "off-1.trace.json"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Errorf("output missing: %v", err)
		}
	}
}

func TestBadArguments(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"nope"}, `unknown command "nope"`},
		{[]string{"run", "--rate", "10"}, "--broker and --rate (> 0) are required"},
		{[]string{"run", "--broker", "http://x", "--rate", "10", "--cold", "10s", "--warm-start", "5s"}, "--warm-start 5s: want ≥ --cold 10s"},
		{[]string{"run", "--broker", "http://x", "--rate", "10", "--queries-file", "/nonexistent"}, "queries file"},
		{[]string{"study", "--sidecar-env", "FOO=1"}, `"FOO=1": want WARMUP_NAME=value`},
		{[]string{"study", "--arm-env", "WARMUP_BUDGET=60s"}, `"WARMUP_BUDGET=60s": want ARM:WARMUP_NAME=value`},
		{[]string{"study", "--arm-env", "on_jit:BUDGET=60s"}, `"on_jit:BUDGET=60s": want ARM:WARMUP_NAME=value`},
		{[]string{"study", "--arm-broker-opt", "-XX:TieredStopAtLevel=1"}, `"-XX:TieredStopAtLevel=1": want ARM:-JVMOPTION`},
		{[]string{"study", "--arm-broker-opt", "on_default:TieredStopAtLevel=1"}, `"on_default:TieredStopAtLevel=1": want ARM:-JVMOPTION`},
		{[]string{"study", "--arm-broker-java", "/usr/lib/jvm/temurin-25-jdk-amd64"}, `want ARM:JDK`},
		{[]string{"study", "--arm-broker-java", "on_aot:"}, `"on_aot:": want ARM:JDK`},
		{[]string{"study", "--arm-broker-java", "on_aot:/a", "--arm-broker-java", "on_aot:/b"}, `arm on_aot already runs on /a`},
		{[]string{"calibrate"}, "give exactly one of --broker URL and --local"},
		{[]string{"steady"}, "steady: no JVM mode: want at least one"},
		{[]string{"steady", "--jvm-mode", "c1=TieredStopAtLevel=1"}, `option "TieredStopAtLevel=1": want a JVM option`},
		{[]string{"steady", "--jvm-mode", "c2=", "--rounds", "0"}, "steady: rounds 0: want ≥ 1"},
		{[]string{"run", "--broker", "http://x", "--rate", "10", "--mix", "nope"}, `--mix: mix "nope": want one of builtin, dashboard, api, mse, reduce`},
		{[]string{"study", "--mix", "api", "--queries-file", "q.sql"}, "--mix api and --queries-file: give one of them"},
		{[]string{"calibrate", "--local", "--mix", "MSE"}, `mix "MSE": want one of`},
		{[]string{"rollout", "--remeasure", "--report", "x.json"}, "--remeasure needs --report (the study's JSON) and --work-dir"},
		{[]string{"rollout", "--broker-cpu-limit", "200m"}, "rollout: broker CPU request 300m, limit 200m: want a limit ≥ the request, or none"},
		// an empty limit is none: the boost has no limit to raise
		{[]string{"rollout", "--broker-cpu-limit", "", "--arms", "off,on_boost"}, "arm on_boost: its boost raises the broker's CPU limit and gives it back, but the brokers have none (broker CPU limit none)"},
		{[]string{"rollout", "--smoke", "--broker-cpu-request", "none", "--broker-cpu-limit", "none", "--arms", "on_boost_fixed"}, "arm on_boost_fixed: its boost raises"},
	} {
		var stdout, stderr bytes.Buffer
		if code := run(tc.args, &stdout, &stderr); code != exitBadArgs {
			t.Errorf("%v: exit %d, want %d", tc.args, code, exitBadArgs)
		}
		if !strings.Contains(stderr.String(), tc.want) {
			t.Errorf("%v: stderr %q lacks %q", tc.args, stderr.String(), tc.want)
		}
	}
}

func TestArmEnvFlag(t *testing.T) {
	a := armEnvList{}
	for _, v := range []string{"on_jit:WARMUP_BUDGET=60s", "on_jit:WARMUP_EXIT=floor", "on_default:WARMUP_BUDGET=30s"} {
		if err := a.Set(v); err != nil {
			t.Fatalf("%s: %v", v, err)
		}
	}
	if a["on_jit"]["WARMUP_BUDGET"] != "60s" || a["on_jit"]["WARMUP_EXIT"] != "floor" || a["on_default"]["WARMUP_BUDGET"] != "30s" || len(a) != 2 {
		t.Errorf("arm settings %v", a)
	}
}

func TestOutputNamePerMix(t *testing.T) {
	for _, tc := range []struct {
		mix   string
		smoke bool
		want  string
	}{
		{coldstart.MixBuiltin, false, "latest"},
		{"", false, "latest"}, // a queries file
		{coldstart.MixDashboard, false, "dashboard"},
		{coldstart.MixMSE, true, "smoke-mse"},
		{coldstart.MixBuiltin, true, "smoke"},
	} {
		if got := outputName(tc.mix, tc.smoke); got != tc.want {
			t.Errorf("outputName(%q, %v) = %q, want %q", tc.mix, tc.smoke, got, tc.want)
		}
	}
}

// --mix api sends the api mix's queries and records the mix; a later run into the same
// study with another mix is refused, not mixed in.
func TestRunWithANamedMix(t *testing.T) {
	srv := fakeBroker(t, 0, 0)
	out := t.TempDir()
	args := []string{"run", "--broker", srv.URL, "--rate", "100", "--timeout", "250ms", "--mix", "api",
		"--cold", "200ms", "--warm-start", "300ms", "--warm-end", "400ms", "--out", out}
	var stdout, stderr bytes.Buffer
	if code := run(args, &stdout, &stderr); code != exitOK {
		t.Fatalf("exit %d; stderr:\n%s", code, stderr.String())
	}
	s, err := coldstart.ReadStudy(filepath.Join(out, "study.json"))
	if err != nil {
		t.Fatal(err)
	}
	if want := coldstart.APIMix("bench_events"); s.Mix != coldstart.MixAPI || !slices.Equal(s.Queries, want) {
		t.Errorf("study mix %q with %d queries, want api with %d", s.Mix, len(s.Queries), len(want))
	}
	var tr coldstart.Trace
	b, err := os.ReadFile(filepath.Join(out, "off-1.trace.json"))
	if err != nil || json.Unmarshal(b, &tr) != nil || len(tr.Records) == 0 {
		t.Fatalf("trace: %v", err)
	}
	for _, r := range tr.Records {
		if r.Query != coldstart.APIMix("bench_events").At(r.Index).Name {
			t.Fatalf("arrival %d sent %q, not the api mix's query", r.Index, r.Query)
		}
	}
	args[8] = "dashboard"
	stderr.Reset()
	if code := run(args, &stdout, &stderr); code != exitFailed || !strings.Contains(stderr.String(), "another query mix") {
		t.Errorf("a second run with another mix: exit %d, stderr %q", code, stderr.String())
	}
}

func TestArmBrokerOptFlag(t *testing.T) {
	a := armOptList{}
	for _, v := range []string{"on_baseline:-XX:TieredStopAtLevel=1", "on_baseline:-XX:CICompilerCount=2", "off:-Xmx2G"} {
		if err := a.Set(v); err != nil {
			t.Fatalf("%s: %v", v, err)
		}
	}
	if got := a["on_baseline"]; len(got) != 2 || got[0] != "-XX:TieredStopAtLevel=1" || got[1] != "-XX:CICompilerCount=2" {
		t.Errorf("on_baseline: %v", got)
	}
	if got := a["off"]; len(got) != 1 || got[0] != "-Xmx2G" {
		t.Errorf("off: %v", got)
	}
}

func TestArmBrokerJavaFlag(t *testing.T) {
	a := armJavaList{}
	for _, v := range []string{"on_aot:/usr/lib/jvm/temurin-25-jdk-amd64", "on_default.jdk25:/opt/jdk/bin/java", "on_aot:/usr/lib/jvm/temurin-25-jdk-amd64"} {
		if err := a.Set(v); err != nil {
			t.Fatalf("%s: %v", v, err)
		}
	}
	if len(a) != 2 || a["on_aot"] != "/usr/lib/jvm/temurin-25-jdk-amd64" || a["on_default.jdk25"] != "/opt/jdk/bin/java" {
		t.Errorf("parsed %v", a)
	}
}

func TestJVMModeFlag(t *testing.T) {
	var l jvmModeList
	for _, v := range []string{"c2=", "c1=-XX:TieredStopAtLevel=1  -XX:CICompilerCount=2"} {
		if err := l.Set(v); err != nil {
			t.Fatalf("%s: %v", v, err)
		}
	}
	if len(l) != 2 || l[0].Name != "c2" || len(l[0].Opts) != 0 || l[1].Name != "c1" || len(l[1].Opts) != 2 || l[1].Opts[1] != "-XX:CICompilerCount=2" {
		t.Errorf("modes = %+v", l)
	}
	for _, bad := range []string{"c1", "=-XX:TieredStopAtLevel=1"} {
		if err := l.Set(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// --picture names two arms and needs --report: anything else is exit 2 before the study is read.
func TestRolloutPictureArguments(t *testing.T) {
	for _, args := range [][]string{
		{"rollout", "--report", "no-such-study.json", "--picture", "off"},
		{"rollout", "--report", "no-such-study.json", "--picture", "off,on_default,on_fast"},
		{"rollout", "--picture", "off,on_default"},
	} {
		var stdout, stderr bytes.Buffer
		if code := run(args, &stdout, &stderr); code != exitBadArgs || !strings.Contains(stderr.String(), "--picture") {
			t.Errorf("%v: exit %d, stderr %q: want %d naming --picture", args, code, stderr.String(), exitBadArgs)
		}
	}
}
