package coldstart

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Arm names of the study, in the order reports show them: no sidecar; the sidecar with its
// defaults (probes derived from the tables' schemas); with upstream's SELECT * ... LIMIT 1
// probe (WARMUP_PROBE_SHAPES=limit1); with the mix's own shapes as WARMUP_QUERY; with its
// defaults but the multi-stage engine left cold (WARMUP_MULTISTAGE=off: what warming both
// engines costs traffic that uses one); with the defaults of another build of the sidecar
// (an interleaved A/B of a code change: studies run one after another drift apart); with
// its defaults plus the broker JVM's JIT signal (WARMUP_JVM_METRICS_URL, the broker running
// the Prometheus JMX exporter agent: what a quiet JIT adds to the exit rule); its defaults
// with the broker on the C1 compiler only (-XX:TieredStopAtLevel=1); its defaults with the
// broker started from a JDK AOT cache (JDK 25+, -XX:AOTCache) trained by the sidecar's own
// probes, or by its probes and then the study's load; and the sidecar set the way Pinot's
// built-in warmup works (upstream's LIMIT 1 probe, a floor of 1000 at concurrency 1, 15 s).
const (
	ArmOff           = "off"
	ArmOnDefault     = "on_default"
	ArmOnLimit1      = "on_limit1"
	ArmOnCustom      = "on_custom"
	ArmOnSingleStage = "on_single_stage"
	ArmOnBaseline    = "on_baseline"
	ArmOnJIT         = "on_jit"
	ArmOnC1          = "on_c1"
	ArmOnAOT         = "on_aot"
	ArmOnAOTLoad     = "on_aot_load"
	ArmUpstreamLike  = "upstream_like"
)

// ArmOrder lists the known arms in report order; other arms follow alphabetically.
var ArmOrder = []string{ArmOff, ArmOnDefault, ArmOnLimit1, ArmOnCustom, ArmOnSingleStage, ArmOnBaseline, ArmOnJIT,
	ArmOnC1, ArmOnAOT, ArmOnAOTLoad, ArmUpstreamLike}

// ArmBase is the known arm an arm name runs: "KNOWN.LABEL" runs KNOWN under its own name, so
// one arm can be measured twice in a study with different settings (on_default.jdk25: the
// sidecar's defaults, the broker on another JDK through --arm-broker-java).
func ArmBase(arm string) string {
	base, _, _ := strings.Cut(arm, ".")
	return base
}

// IsAOTArm says whether arm starts its broker from an AOT cache the study trains first.
func IsAOTArm(arm string) bool {
	b := ArmBase(arm)
	return b == ArmOnAOT || b == ArmOnAOTLoad
}

// DefaultArms are the arms a study runs unless told: on_single_stage, on_baseline and on_jit
// answer narrower questions and are asked for by name.
var DefaultArms = ArmOrder[:4]

// Restart is one cold restart of one arm (the R of results/coldstart/latest.json).
// The first eight fields are the contract; the rest explain them.
type Restart struct {
	ColdCancelRate     float64 `json:"cold_cancel_rate"`
	ColdP50Ms          float64 `json:"cold_p50_ms"`
	ColdP99Ms          float64 `json:"cold_p99_ms"`
	ColdMeanTimeUsedMs float64 `json:"cold_mean_time_used_ms"`
	WarmCancelRate     float64 `json:"warm_cancel_rate"`
	WarmP99Ms          float64 `json:"warm_p99_ms"`
	// PeakInflight is the cold window's peak (the storm's height).
	PeakInflight int `json:"peak_inflight"`
	// WarmupSeconds is the sidecar's own run time, broker convergence → gate open; 0 for OFF.
	WarmupSeconds float64 `json:"warmup_seconds"`

	Cold WindowStats `json:"cold"`
	Warm WindowStats `json:"warm"`
	// Warmup is the sidecar's /status at Ready (ON arms only).
	Warmup *WarmupInfo `json:"warmup,omitempty"`
	// ReadyAt is the Ready instant (offset 0 of the load). HealthySeconds is how long the
	// broker took from its (re)start to /health 200, ReadySeconds to the Ready signal.
	ReadyAt        time.Time `json:"ready_at"`
	HealthySeconds float64   `json:"healthy_seconds,omitempty"`
	ReadySeconds   float64   `json:"ready_seconds,omitempty"`
	// Diagnostics are optional figures about the broker JVM over the cold window.
	Diagnostics *Diagnostics `json:"diagnostics,omitempty"`
	// AOTCache is what the broker JVM's own log said of its AOT cache (AOT arms only).
	AOTCache *AOTCacheUse `json:"aot_cache,omitempty"`
}

// WarmupInfo is what the sidecar said about its run.
type WarmupInfo struct {
	Outcome         string  `json:"outcome"`
	ProbesSucceeded int64   `json:"probes_succeeded"`
	ProbesFailed    int64   `json:"probes_failed"`
	DurationSeconds float64 `json:"duration_seconds"`
	// ExitReason is the sidecar's own account of why the run ended (its /status exit_reason).
	ExitReason string `json:"exit_reason,omitempty"`
}

// Diagnostics explain a restart's figures from the broker JVM's own counters and the
// machine's CPU, where the harness could read them (the local study does; `run` cannot).
type Diagnostics struct {
	// PreReady is the broker JVM from its start to the Ready instant (sidecar probes included).
	PreReady WindowDiag `json:"pre_ready"`
	Cold     WindowDiag `json:"cold"`
	Warm     WindowDiag `json:"warm"`
	// Notes explain figures that could not be read.
	Notes []string `json:"notes,omitempty"`
}

// WindowDiag is what happened during one span of time.
type WindowDiag struct {
	Seconds float64 `json:"seconds"`
	// JIT: methods compiled and the compilations' wall time (jstat -compiler's Compiled and
	// Time). On a busy machine the wall time counts a compiler thread waiting for a core too:
	// BrokerCompilerCPUSeconds is what the compiler threads really used.
	JITCompiles int64   `json:"jit_compiles"`
	JITSeconds  float64 `json:"jit_seconds"`
	// GC pauses (count and total, all collectors) and time spent at safepoints.
	GCPauses         int64   `json:"gc_pauses"`
	GCSeconds        float64 `json:"gc_seconds"`
	SafepointSeconds float64 `json:"safepoint_seconds"`
	// CPU seconds: the broker JVM, the cluster's other JVMs (servers, controller, ZooKeeper),
	// the load generator (this process) and the whole machine; MachineBusy is the machine's
	// busy share of all its cores.
	BrokerCPUSeconds float64 `json:"broker_cpu_seconds"`
	// Of BrokerCPUSeconds: the JIT compiler threads' and the GC threads' (with the VM
	// thread's safepoint work) CPU seconds, from the broker's per-thread /proc stat.
	BrokerCompilerCPUSeconds float64 `json:"broker_compiler_cpu_seconds"`
	BrokerGCCPUSeconds       float64 `json:"broker_gc_cpu_seconds"`
	OthersCPUSeconds         float64 `json:"others_cpu_seconds"`
	LoadCPUSeconds           float64 `json:"load_cpu_seconds"`
	MachineCPUSeconds        float64 `json:"machine_cpu_seconds"`
	MachineBusy              float64 `json:"machine_busy"`
	// BrokerLog summarises the broker's own query log over the window (queries that finished
	// in it; the log is rate-limited, so it is a sample).
	BrokerLog *BrokerLogStats `json:"broker_log,omitempty"`
}

// BrokerLogStats split the broker's timeMs: SubmitDelay is the broker's work before the
// scatter (compile, routing), ServerResponse the slowest server's answer as the broker saw it,
// Reduce the broker's merge of the answers. Medians unless named otherwise.
type BrokerLogStats struct {
	Logged              int     `json:"logged"`
	P50TimeMs           float64 `json:"p50_time_ms"`
	P99TimeMs           float64 `json:"p99_time_ms"`
	P50SubmitDelayMs    float64 `json:"p50_submit_delay_ms"`
	P50ServerResponseMs float64 `json:"p50_server_response_ms"`
	P50ReduceMs         float64 `json:"p50_reduce_ms"`
}

// Summarise builds a Restart from a load run and its windows.
func Summarise(tr *Trace, cold, warm Window) Restart {
	c, w := Stats(tr, cold), Stats(tr, warm)
	return Restart{
		ColdCancelRate:     c.CancelRate,
		ColdP50Ms:          c.P50Ms,
		ColdP99Ms:          c.P99Ms,
		ColdMeanTimeUsedMs: c.MeanTimeUsedMs,
		WarmCancelRate:     w.CancelRate,
		WarmP99Ms:          w.P99Ms,
		PeakInflight:       c.PeakInflight,
		Cold:               c,
		Warm:               w,
		ReadyAt:            tr.Start,
	}
}

// Arm is one arm's restarts.
type Arm struct {
	Restarts []Restart `json:"restarts"`
	// Sidecar is the WARMUP_* environment of an ON arm.
	Sidecar map[string]string `json:"sidecar,omitempty"`
	// AOTTraining is how the arm's AOT cache was made (AOT arms only).
	AOTTraining *AOTTraining `json:"aot_training,omitempty"`
}

// Study is results/coldstart/latest.json. pinot_version, rate_qps and arms are the
// contract; the rest records how the figures were made.
type Study struct {
	PinotVersion string          `json:"pinot_version"`
	RateQPS      float64         `json:"rate_qps"`
	Arms         map[string]*Arm `json:"arms"`

	// Mix names the query mix (MixNames); empty for a queries file.
	Mix           string   `json:"mix,omitempty"`
	Smoke         bool     `json:"smoke"`
	ColdWindow    Window   `json:"cold_window"`
	WarmWindow    Window   `json:"warm_window"`
	TimeoutMs     float64  `json:"timeout_ms"`
	Queries       Mix      `json:"queries"`
	BrokerJVMOpts []string `json:"broker_jvm_opts,omitempty"`
	// ArmBrokerJVMOpts: JVM options one arm's brokers ran with beyond BrokerJVMOpts.
	ArmBrokerJVMOpts map[string][]string `json:"arm_broker_jvm_opts,omitempty"`
	// ArmBrokerJava is the JDK one arm's restarted brokers ran on; every other broker and role
	// ran on the machine's (Machine.Java).
	ArmBrokerJava map[string]JDK `json:"arm_broker_java,omitempty"`
	Machine       Machine        `json:"machine"`
	Command       string         `json:"command"`
	StartedAt     time.Time      `json:"started_at"`
	FinishedAt    time.Time      `json:"finished_at"`
	Notes         []string       `json:"notes,omitempty"`
	// Calibration, when the rate was measured rather than given.
	Calibration *Calibration `json:"calibration,omitempty"`
}

// ArmNames lists s's arms in report order.
func (s *Study) ArmNames() []string {
	var out, rest []string
	for _, a := range ArmOrder {
		if _, ok := s.Arms[a]; ok {
			out = append(out, a)
		}
	}
	for a := range s.Arms {
		if !slices.Contains(ArmOrder, a) {
			rest = append(rest, a)
		}
	}
	slices.Sort(rest)
	return append(out, rest...)
}

// WriteJSON writes v indented to path (directories created), atomically.
func WriteJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding %s: %w", path, err)
	}
	return writeFile(path, append(b, '\n'))
}

// ReadStudy loads a study JSON file.
func ReadStudy(path string) (*Study, error) { return ReadJSON[Study](path, "study") }

// ReadJSON loads a JSON file as a T; what names it in the errors.
func ReadJSON[T any](path, what string) (*T, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", what, err)
	}
	var v T
	if err := json.Unmarshal(b, &v); err != nil {
		return nil, fmt.Errorf("reading %s %s: %w", what, path, err)
	}
	return &v, nil
}

func writeFile(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// Agg is median / mean / range of one figure over an arm's restarts.
type Agg struct {
	N                      int
	Median, Mean, Min, Max float64
}

// Aggregate summarises values (NaN-free).
func Aggregate(values []float64) Agg {
	if len(values) == 0 {
		return Agg{Median: math.NaN(), Mean: math.NaN(), Min: math.NaN(), Max: math.NaN()}
	}
	v := slices.Clone(values)
	slices.Sort(v)
	var sum float64
	for _, x := range v {
		sum += x
	}
	med := v[len(v)/2]
	if len(v)%2 == 0 {
		med = (v[len(v)/2-1] + v[len(v)/2]) / 2
	}
	return Agg{N: len(v), Median: med, Mean: sum / float64(len(v)), Min: v[0], Max: v[len(v)-1]}
}

// Field picks one figure out of a Restart.
type Field struct {
	Key   string // the JSON name
	Label string
	Unit  string // "%" scales rates 0..1 to percent
	Get   func(Restart) float64
}

// Fields are the contract's figures, in table order.
var Fields = []Field{
	{"cold_cancel_rate", "cold cancellation rate", "%", func(r Restart) float64 { return r.ColdCancelRate }},
	{"cold_p50_ms", "cold p50", "ms", func(r Restart) float64 { return r.ColdP50Ms }},
	{"cold_p99_ms", "cold p99", "ms", func(r Restart) float64 { return r.ColdP99Ms }},
	{"cold_mean_time_used_ms", "cold mean timeUsedMs", "ms", func(r Restart) float64 { return r.ColdMeanTimeUsedMs }},
	{"peak_inflight", "cold peak in-flight", "", func(r Restart) float64 { return float64(r.PeakInflight) }},
	{"warm_cancel_rate", "warm cancellation rate", "%", func(r Restart) float64 { return r.WarmCancelRate }},
	{"warm_p99_ms", "warm p99", "ms", func(r Restart) float64 { return r.WarmP99Ms }},
	{"warmup_seconds", "warmup", "s", func(r Restart) float64 { return r.WarmupSeconds }},
}

// AggregateArm applies Aggregate to one field over an arm.
func AggregateArm(a *Arm, f Field) Agg {
	v := make([]float64, 0, len(a.Restarts))
	for _, r := range a.Restarts {
		v = append(v, f.Get(r))
	}
	return Aggregate(v)
}
