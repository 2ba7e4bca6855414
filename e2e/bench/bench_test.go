package bench

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/e2e/coldstart"
)

// perfBuffer builds a HotSpot perf-data buffer holding the given long counters.
func perfBuffer(t *testing.T, longs map[string]int64) []byte {
	t.Helper()
	bo := binary.LittleEndian
	b := make([]byte, 32)
	binary.BigEndian.PutUint32(b, perfMagic)
	b[4] = 1 // little endian
	bo.PutUint32(b[24:], 32)
	bo.PutUint32(b[28:], uint32(len(longs)+1))
	add := func(name string, typ byte, data []byte) {
		nameOff := 20
		dataOff := (nameOff + len(name) + 1 + 7) &^ 7
		e := make([]byte, dataOff+len(data))
		bo.PutUint32(e[0:], uint32(len(e)))
		bo.PutUint32(e[4:], uint32(nameOff))
		e[12] = typ
		bo.PutUint32(e[16:], uint32(dataOff))
		copy(e[nameOff:], name)
		copy(e[dataOff:], data)
		b = append(b, e...)
	}
	add("java.property.java.vm.name", 'B', []byte("OpenJDK\x00")) // a string: skipped
	for k, v := range longs {
		d := make([]byte, 8)
		bo.PutUint64(d, uint64(v))
		add(k, 'J', d)
	}
	return b
}

func TestParsePerfData(t *testing.T) {
	b := perfBuffer(t, map[string]int64{"sun.ci.totalCompiles": 2449, "java.ci.totalTime": 615970833, "sun.os.hrt.frequency": 1_000_000_000})
	got, err := parsePerfData(b)
	if err != nil {
		t.Fatal(err)
	}
	if got["sun.ci.totalCompiles"] != 2449 || got["java.ci.totalTime"] != 615970833 || len(got) != 3 {
		t.Errorf("parsed %v", got)
	}
	b[0] = 0
	if _, err := parsePerfData(b); err == nil || !strings.Contains(err.Error(), "bad magic") {
		t.Errorf("corrupt magic: err = %v", err)
	}
	if _, err := parsePerfData(b[:10]); err == nil {
		t.Error("short buffer parsed")
	}
}

func TestCPUSecondsOfThisProcess(t *testing.T) {
	before, err := CPUSeconds(0)
	if err != nil {
		t.Fatal(err)
	}
	// Spin until the counter moves by 50 ms of CPU: on a busy machine that takes longer in wall time.
	after := before
	for end := time.Now().Add(5 * time.Second); after-before < 0.05 && time.Now().Before(end); {
		after, _ = CPUSeconds(0)
	}
	if after-before < 0.05 {
		t.Errorf("CPU seconds went %v → %v over 5 s of spinning", before, after)
	}
	busy, total, err := MachineCPU()
	if err != nil || busy <= 0 || total < busy {
		t.Errorf("MachineCPU = %v, %v, %v", busy, total, err)
	}
}

func TestMedianIndex(t *testing.T) {
	rs := []coldstart.Restart{{ColdCancelRate: 0.5}, {ColdCancelRate: 0.1}, {ColdCancelRate: 0.3}, {ColdCancelRate: 0.9}, {ColdCancelRate: 0.2}}
	if got := medianIndex(rs); got != 2 {
		t.Errorf("median restart = %d, want 2 (0.3)", got)
	}
}

func TestConfigCheck(t *testing.T) {
	plain := filepath.Join(t.TempDir(), "warmup-sidecar")
	if err := os.WriteFile(plain, []byte("not a binary"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		cfg  Config
		want string
	}{
		{Config{Arms: []string{"on"}}, `arm "on": want one of off, on_default, on_limit1, on_custom, on_single_stage, on_baseline, on_jit, on_c1, on_aot, on_aot_load, upstream_like, or one of them with a .label`},
		{Config{Arms: []string{"nope.jdk25"}}, `arm "nope.jdk25": want one of off`},
		{Config{Arms: []string{"on_default", "on_aot"}}, "arm on_aot: give its broker a JDK 25+ (--arm-broker-java on_aot:/usr/lib/jvm/<jdk>)"},
		{Config{Arms: []string{"on_aot_load.b"}}, "arm on_aot_load.b: give its broker a JDK 25+"},
		{Config{Arms: []string{"on_default"}, ArmBrokerJava: map[string]string{"on_c1": "/usr"}}, "broker java for on_c1: want an arm of this study (on_default)"},
		{Config{Arms: []string{"on_default"}, ArmBrokerJava: map[string]string{"on_default": "/nonexistent/jdk"}}, "broker java for on_default: java /nonexistent/jdk: stat /nonexistent/jdk: no such file"},
		{Config{Arms: []string{"on_default"}, ArmBrokerJava: map[string]string{"on_default": plain}}, "broker java for on_default: java " + plain + ": want an executable file or a JDK home"},
		{Config{Arms: []string{"off", "on_jit"}}, "arm on_jit: run the broker with the JMX exporter agent (--broker-jmx-agent)"},
		{Config{Arms: []string{"on_default", "on_baseline"}}, "arm on_baseline: set the baseline sidecar binary (--baseline-sidecar)"},
		{Config{BaselineSidecar: "/bin/sh"}, "baseline sidecar /bin/sh: no arm on_baseline runs it"},
		{Config{Arms: []string{"on_baseline"}, BaselineSidecar: "/nonexistent/warmup-sidecar"}, "baseline sidecar: stat /nonexistent/warmup-sidecar: no such file"},
		{Config{Arms: []string{"on_baseline"}, BaselineSidecar: plain}, "baseline sidecar " + plain + ": want an executable file"},
		{Config{Cold: 10 * time.Second, WarmStart: 5 * time.Second}, "windows cold [0,10s) warm [5s,1m15s)"},
		{Config{Rate: -1}, "rate -1: want ≥ 0 (0: calibrate)"},
		{Config{BrokerNice: 20}, "broker nice 20: want 0–19"},
		{Config{BrokerNice: -1}, "broker nice -1: want 0–19"},
		{Config{Arms: []string{"off", "on_default"}, ArmEnv: map[string]map[string]string{"on_custom": {"WARMUP_BUDGET": "60s"}}}, "arm settings for on_custom: want an ON arm of this study (off, on_default)"},
		{Config{Arms: []string{"off", "on_default"}, ArmEnv: map[string]map[string]string{"off": {"WARMUP_BUDGET": "60s"}}}, "arm settings for off: want an ON arm"},
		{Config{Arms: []string{"off", "on_default"}, ArmBrokerJVMOpts: map[string][]string{"on_limit1": {"-XX:TieredStopAtLevel=1"}}}, "broker JVM options for on_limit1: want an arm of this study (off, on_default)"},
		{Config{Arms: []string{"off", "on_default"}, ArmBrokerJVMOpts: map[string][]string{"off": {"TieredStopAtLevel=1"}}}, `broker JVM option "TieredStopAtLevel=1" for off: want a JVM option`},
	} {
		err := tc.cfg.withDefaults().check()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: err = %v, want %q", tc.cfg, err, tc.want)
		}
	}
	exe, err := os.Executable() // any executable file stands for a build here
	if err != nil {
		t.Fatal(err)
	}
	ab := Config{Arms: []string{"on_default", "on_baseline"}, BaselineSidecar: exe}.withDefaults()
	if err := ab.check(); err != nil {
		t.Errorf("on_baseline with a binary: %v", err)
	}
	jit := Config{Arms: []string{"on_default", "on_jit"}, BrokerJMXAgent: true}.withDefaults()
	if err := jit.check(); err != nil {
		t.Errorf("on_jit with the agent: %v", err)
	}
	opts := Config{Arms: []string{"off", "on_default"}, ArmBrokerJVMOpts: map[string][]string{"off": {"-XX:TieredStopAtLevel=1"}}}.withDefaults()
	if err := opts.check(); err != nil {
		t.Errorf("broker JVM options for an arm of the study: %v", err)
	}
	// A JDK home (its bin/java) or the executable itself; AOT arms and labelled arms with one.
	home := t.TempDir()
	if err := os.MkdirAll(filepath.Join(home, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(exe, filepath.Join(home, "bin", "java")); err != nil {
		t.Fatal(err)
	}
	jdk := Config{Arms: []string{"on_default", "on_default.jdk25", "on_aot", "on_aot_load", "on_c1", "upstream_like"},
		ArmBrokerJava: map[string]string{"on_default.jdk25": home, "on_aot": home, "on_aot_load": exe}}.withDefaults()
	if err := jdk.check(); err != nil {
		t.Errorf("issue 28's arms: %v", err)
	}
	if got, err := coldstart.JavaExecutable(home); err != nil || got != filepath.Join(home, "bin", "java") {
		t.Errorf("JavaExecutable(JDK home) = %q, %v", got, err)
	}
	def := (Config{}).withDefaults()
	if err := def.check(); err != nil {
		t.Errorf("defaults: %v", err)
	}
	if def.MixName != coldstart.MixBuiltin || len(def.Mix) != len(coldstart.DefaultMix("t")) || len(def.Arms) != 4 {
		t.Errorf("defaults: mix %q (%d queries), arms %v; want the builtin mix and all four arms", def.MixName, len(def.Mix), def.Arms)
	}
}

func TestCheckStudyCatchesABrokenTool(t *testing.T) {
	dir := t.TempDir()
	good := coldstart.Restart{
		Cold: coldstart.WindowStats{Queries: 100, OK: 60, Cancelled: 40, MeanTimeUsedMs: 50},
		Warm: coldstart.WindowStats{Queries: 100, OK: 100, MeanTimeUsedMs: 3},
	}
	on := good
	on.WarmupSeconds, on.Warmup = 9, &coldstart.WarmupInfo{Outcome: "warm", ProbesSucceeded: 1000}
	tr := &coldstart.Trace{Timeout: 2 * time.Second, Records: []coldstart.Record{{Outcome: coldstart.OutcomeOK, Latency: time.Millisecond}}}
	s := &coldstart.Study{Arms: map[string]*coldstart.Arm{
		coldstart.ArmOff: {Restarts: []coldstart.Restart{good}}, coldstart.ArmOnDefault: {Restarts: []coldstart.Restart{on}}}}
	out, err := WriteResults(dir, "x", s, Traces{coldstart.ArmOff: {tr}, coldstart.ArmOnDefault: {tr}})
	if err != nil {
		t.Fatal(err)
	}
	arms := []string{coldstart.ArmOff, coldstart.ArmOnDefault}
	if err := CheckStudy(s, arms, 1, out); err != nil {
		t.Fatalf("a good study failed the checks: %v", err)
	}
	broken := on
	broken.Warmup, broken.WarmupSeconds = nil, 0
	failing := good
	failing.Warm = coldstart.WindowStats{Queries: 100, Errors: 100, ErrorRate: 1}
	s.Arms[coldstart.ArmOnDefault].Restarts = []coldstart.Restart{broken}
	s.Arms[coldstart.ArmOff].Restarts = []coldstart.Restart{failing}
	os.Remove(out.PNG)
	err = CheckStudy(s, append(arms, coldstart.ArmOnCustom), 1, out)
	for _, want := range []string{
		"arm on_custom: missing",
		"arm off restart 1: 100% of the warm window's queries failed",
		"arm on_default restart 1: the sidecar reported no finished warmup",
		"plot: open " + filepath.Join(dir, "x.png"),
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("CheckStudy error lacks %q:\n%v", want, err)
		}
	}
}

func TestParseQueryLogLine(t *testing.T) {
	// A real 0.11.0 broker line (two servers).
	line := `15:47:30.076 INFO [BaseBrokerRequestHandler] [jersey-server-managed-async-executor-1] requestId=3,table=placement_both,timeMs=20,docs=4000/4000,entries=0/0,segments(queried/processed/matched/consumingQueried/consumingProcessed/consumingMatched/unavailable):4/4/4/0/0/0/0,consumingFreshnessTimeMs=0,servers=2/2,groupLimitReached=false,brokerReduceTimeMs=3,exceptions=0,serverStats=(Server=SubmitDelayMs,ResponseDelayMs,ResponseSize,DeserializationTimeMs,RequestSentDelayMs);127.0.0.1_O=1,8,266,0,-1;127.0.0.1_O=2,13,266,1,1,offlineThreadCpuTimeNs(total/thread/sysActivity/resSer):0/0/0/0,realtimeThreadCpuTimeNs(total/thread/sysActivity/resSer):0/0/0/0,clientIp=unknown,query=SELECT COUNT(*) FROM "placement_both"`
	ref := time.Date(2026, 11, 29, 15, 47, 0, 0, time.UTC)
	l, ok := parseQueryLogLine(line, ref)
	if !ok {
		t.Fatal("line not parsed")
	}
	want := queryLogLine{at: time.Date(2026, 11, 29, 15, 47, 30, 76e6, time.UTC), timeMs: 20, submitMs: 2, responseMs: 13, deserMs: 1, reduceMs: 3}
	if l != want {
		t.Errorf("parsed %+v, want %+v", l, want)
	}
	// Just after midnight, a line from just before it belongs to the day before.
	l, _ = parseQueryLogLine("23:59:59.500 INFO [BaseBrokerRequestHandler] requestId=1,timeMs=5,brokerReduceTimeMs=0,", time.Date(2026, 11, 30, 0, 0, 1, 0, time.UTC))
	if want := time.Date(2026, 11, 29, 23, 59, 59, 5e8, time.UTC); !l.at.Equal(want) {
		t.Errorf("midnight: at %s, want %s", l.at, want)
	}
	s := queryLogStats([]queryLogLine{want2(10), want2(30), want2(20)}, ref, ref.Add(time.Hour))
	if s == nil || s.Logged != 3 || s.P50TimeMs != 20 || s.P99TimeMs != 30 {
		t.Errorf("stats = %+v", s)
	}
}

func want2(ms float64) queryLogLine {
	return queryLogLine{at: time.Date(2026, 11, 29, 15, 47, 30, 0, time.UTC), timeMs: ms}
}

// on_c1 (and a labelled on_c1) adds the C1-only flag, recorded as the arm's own option; no
// other arm gets it.
func TestOnC1RunsTheBrokerOnC1Only(t *testing.T) {
	e := &Env{cfg: Config{Arms: []string{"on_default", "on_c1", "on_c1.b"}}.withDefaults(), work: "/w"}
	for _, arm := range []string{"on_c1", "on_c1.b"} {
		if got := e.brokerOpts(arm, "x"); !slices.Contains(got, C1OnlyOpt) {
			t.Errorf("%s: %v lacks %s", arm, got, C1OnlyOpt)
		}
	}
	if got := e.brokerOpts("on_default", "x"); slices.Contains(got, C1OnlyOpt) {
		t.Errorf("on_default: %v", got)
	}
	if got := e.armOptsAll(); len(got) != 2 || !slices.Equal(got["on_c1"], []string{C1OnlyOpt}) {
		t.Errorf("recorded arm options %v, want on_c1 and on_c1.b with %s only", got, C1OnlyOpt)
	}
}

func TestBrokerOptsAddTheArmsOwnAfterTheChartsAndNotToOtherArms(t *testing.T) {
	e := &Env{cfg: Config{ArmBrokerJVMOpts: map[string][]string{"on_baseline": {"-XX:TieredStopAtLevel=1"}}}.withDefaults(), work: "/w"}
	got := e.brokerOpts("on_baseline", "on_baseline-1")
	n := len(ChartBrokerJVMOpts)
	if !slices.Equal(got[:n], ChartBrokerJVMOpts) || got[n] != "-XX:TieredStopAtLevel=1" || !strings.HasPrefix(got[n+1], "-Xlog:gc*:file=/w/gc/broker-on_baseline-1.log") {
		t.Errorf("on_baseline's broker: %v", got)
	}
	for _, arm := range []string{"on_default", ""} {
		if other := e.brokerOpts(arm, "x"); slices.Contains(other, "-XX:TieredStopAtLevel=1") {
			t.Errorf("arm %q got another arm's option: %v", arm, other)
		}
	}
}

// The training's evidence comes from its -Xlog files and from what the JVM printed to the
// broker's role log since its last start, not from earlier starts.
func TestAOTTrainingEvidence(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write("aot-train-on_aot-101.log", "[1.0s][info][aot] trying to map x\n[60.2s][warning][aot] Skipping org/Foo: Unlinked class\n")
	role := write("broker.log", "\n=== 10:00 java old\nAOTCache creation is complete: /old.aot 1 bytes\n"+
		"\n=== 10:05 java new\n10:06 INFO started\nLaunching child process /jdk25/bin/java to assemble AOT cache /w/aot/on_aot.aot using configuration /tmp/x\n"+
		"AOTCache creation is complete: /w/aot/on_aot.aot 91500000 bytes\n")
	got := aotTrainingEvidence(filepath.Join(dir, "aot-train-on_aot-*.log"), role)
	want := []string{"[60.2s][warning][aot] Skipping org/Foo: Unlinked class",
		"Launching child process /jdk25/bin/java to assemble AOT cache /w/aot/on_aot.aot using configuration /tmp/x",
		"AOTCache creation is complete: /w/aot/on_aot.aot 91500000 bytes"}
	if !slices.Equal(got, want) {
		t.Errorf("evidence %q\nwant %q", got, want)
	}
}
