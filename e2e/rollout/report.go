package rollout

import (
	"slices"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/e2e/coldstart"
)

// Result is one measured event: a rollout of the whole fleet, or one scale-out.
type Result struct {
	Arm       string    `json:"arm"`
	N         int       `json:"n"`    // the arm's rollout number, from 1
	Kind      string    `json:"kind"` // "rollout" or "scale_out"
	StartedAt time.Time `json:"started_at"`
	// Failed are queries answered with an error (or a transport failure), Cancelled those with
	// no answer within the client timeout, over the rollout window (the helm upgrade → the end of
	// the load).
	Queries       int     `json:"queries"`
	Failed        int     `json:"failed"`
	Cancelled     int     `json:"cancelled"`
	FailedRate    float64 `json:"failed_rate"`
	CancelledRate float64 `json:"cancelled_rate"`
	// ByPhase splits them by pod and phase (shutdown / start; "other" outside every span).
	ByPhase []PhaseCount `json:"by_phase"`
	// SteadyFailed, SteadyCancelled: the warm fleet's, before the rollout (want 0).
	SteadyFailed    int                   `json:"steady_failed"`
	SteadyCancelled int                   `json:"steady_cancelled"`
	Steady          coldstart.WindowStats `json:"steady"`
	Rollout         coldstart.WindowStats `json:"rollout"`
	// Worst10sP99Ms is the highest p99 of any 10 s window of the rollout window; Ratio is it
	// over the steady p99.
	Worst10sP99Ms     float64 `json:"worst_10s_p99_ms"`
	Worst10sAtSeconds float64 `json:"worst_10s_at_s"` // from the rollout's start
	Worst10sRatio     float64 `json:"worst_10s_ratio"`
	// Entries: each pod's first EntrySpan in the Service, the cold serve readiness is about;
	// QuietWorst10s*: the worst 10 s p99 of the windows when no pod was starting or being warmed
	// (entry.go: those share the servers and the node with the serving pods). 0 when there was none.
	Entries []Entry `json:"entries,omitempty"`
	// GiveBacks: the load's EntrySpan after each pod's boosted CPU was given back (the node
	// agent ran it at its own limit): what giving it back while the JIT still compiles costs.
	GiveBacks          []Entry `json:"give_backs,omitempty"`
	QuietWorst10sP99Ms float64 `json:"quiet_worst_10s_p99_ms"`
	QuietWorst10sRatio float64 `json:"quiet_worst_10s_ratio"`
	// Neighbours*: the p99 of the queries sent while a pod was starting or being warmed out of
	// service and no pod was in its first EntrySpan in service (the pods in service answered
	// them), and its ratio over the steady p99: what a warmup costs its neighbours.
	NeighboursQueries int     `json:"neighbours_queries"`
	NeighboursP99Ms   float64 `json:"neighbours_p99_ms"`
	NeighboursRatio   float64 `json:"neighbours_ratio"`
	// NeighboursByPhase: the same load split by what the pod out of service was doing (its
	// JVM's start, its sidecar's probes, nothing): the warmup's own cost apart (neighbours.go).
	NeighboursByPhase *NeighboursByPhase `json:"neighbours_by_phase,omitempty"`
	// WarmupCosts: what each pod's warmup in the event cost the rest of the fleet (ON arms;
	// absent in studies made before it was measured): warmupcost.go.
	WarmupCosts []WarmupCost `json:"warmup_costs,omitempty"`
	// DurationSeconds: the helm upgrade → the StatefulSet's status reporting every pod updated
	// and Ready (on the harness's former model: first deletion → last pod available).
	DurationSeconds float64 `json:"duration_s"`
	// Unfinished: the event was not rolled out within its bound (Config.PodBound per pod) and
	// why (the StatefulSet's and the pods' state then); its windows end at the bound (no tail)
	// and DurationSeconds is the bound. RecoverySeconds: then, with the load stopped, how long
	// the fleet took to roll out and be Ready. Empty, 0: it finished.
	Unfinished      string  `json:"unfinished,omitempty"`
	RecoverySeconds float64 `json:"recovery_s,omitempty"`
	// BrokerRestarts: the broker containers' in-place restarts in the rollout window (restarted
	// events: a failed liveness probe, or the JVM exited).
	BrokerRestarts int        `json:"broker_restarts,omitempty"`
	Pods           []PodTimes `json:"pods"`
	// Seconds is the whole load second by second (for the timeline; t_s from the load's start).
	Seconds []Second `json:"seconds"`
	// States are each pod's states on the Seconds clock.
	States []StateSpan `json:"states"`
	// RolloutStartSeconds places the rollout's start (the helm upgrade) on the Seconds clock.
	RolloutStartSeconds float64 `json:"rollout_start_s"`
	// SteadyStartSeconds places the steady window on the Seconds clock (absent in studies made
	// before the fleet had to settle: Study.WarmS). Unsettled: the fleet still lost queries when
	// Config.SteadyWait ran out, and the steady window began on it as it was (empty: it served
	// the load for SteadyQuiet without a loss first).
	SteadyStartSeconds float64 `json:"steady_start_s,omitempty"`
	Unsettled          string  `json:"unsettled,omitempty"`
	// Readied: the fleet was first rolled to the arm's broker CPU, unmeasured, and how
	// (readycpu.go); empty when it had it.
	Readied     string `json:"readied,omitempty"`
	LoadAverage string `json:"load_average"` // the machine's, before the event
	// JavaClient: the queries of the client that picks brokers itself (Config.JavaClient).
	JavaClient *JavaClient `json:"java_client,omitempty"`
}

// Arm holds one arm's events.
type Arm struct {
	Rollouts  []*Result `json:"rollouts"`
	ScaleOuts []*Result `json:"scale_outs,omitempty"`
	// BrokerProbe and SidecarProbe are the readiness probes the arm's pods had (the broker
	// StatefulSet as the API server held it after the arm's events; SidecarProbe nil: no sidecar).
	BrokerProbe  *ProbeJSON `json:"broker_readiness_probe,omitempty"`
	SidecarProbe *ProbeJSON `json:"sidecar_readiness_probe,omitempty"`
	// BrokerCPU is the arm's broker CPU where it is not the study's (on_boost_300m's); nil: the
	// study's (Platform.Broker).
	BrokerCPU *Resources `json:"broker_cpu,omitempty"`
	// WarmupCost summarises its events' WarmupCosts (nil: none measured).
	WarmupCost *WarmupCostSummary `json:"warmup_cost,omitempty"`
}

// Events are the arm's rollouts, then its scale-outs.
func (a *Arm) Events() []*Result {
	return append(slices.Clone(a.Rollouts), a.ScaleOuts...)
}

// Study is the whole rollout study: the JSON of results/rollout/.
type Study struct {
	PinotVersion string                 `json:"pinot_version"`
	Brokers      int                    `json:"brokers"`
	BenchRows    int                    `json:"bench_rows"`
	RateQPS      float64                `json:"rate_qps"`
	Calibration  *coldstart.Calibration `json:"calibration,omitempty"`
	Mix          string                 `json:"mix,omitempty"`
	Queries      coldstart.Mix          `json:"queries"`
	TimeoutMs    float64                `json:"timeout_ms"`
	// Platform is the Kubernetes test bed the study ran on.
	Platform *Platform `json:"platform,omitempty"`
	// Model is a study's made before the test bed, on the harness's model of Kubernetes (its
	// rules, removed since): kept so their reports re-render as they were made.
	Model      *LegacyModel `json:"model,omitempty"`
	SlowStartS float64      `json:"lb_slowstart_s"`
	// WarmS, SteadyS, TailS: the load before the steady window, the steady window, and the load
	// after the last pod became available.
	WarmS float64 `json:"warm_s"`
	// SteadyWaitS, SteadyQuietS: the most load before the steady window, and the loss-free
	// load it began after (absent before the fleet had to settle: the steady window began WarmS
	// into the load, whatever the fleet did).
	SteadyWaitS   float64 `json:"steady_wait_s,omitempty"`
	SteadyQuietS  float64 `json:"steady_quiet_s,omitempty"`
	SteadyS       float64 `json:"steady_s"`
	TailS         float64 `json:"tail_s"`
	SidecarBudget string  `json:"sidecar_budget"`
	// BoostCPULimit and BoostFixedHoldS: the boost arms' limit while boosted and on_boost_fixed's
	// hold after the gate opened (absent in studies made before they were recorded).
	BoostCPULimit   string  `json:"boost_cpu_limit,omitempty"`
	BoostFixedHoldS float64 `json:"boost_fixed_hold_s,omitempty"`
	// BoostSettle is on_boost's brokerCpuBoost.settle, the chart's default (absent before
	// boost-settle-dashboard; 30s in boost-settle-builtin, 2m before it).
	BoostSettle string `json:"boost_settle,omitempty"`
	// BoostCompilers is on_boost_compilers' -XX:CICompilerCount (absent before queries-support-console).
	BoostCompilers int `json:"boost_compilers,omitempty"`
	// Targets names the set of targets the study is judged by (targets.go): by its brokers' CPU
	// limit. Absent before there was more than one: the CPU-limited set.
	Targets string `json:"targets,omitempty"`
	// GentleConcurrency is on_boost_gentle's warmup.concurrency (absent without that arm).
	GentleConcurrency int `json:"gentle_concurrency,omitempty"`
	// PacedRate is on_fast_paced's warmup.maxProbeRate (absent without that arm).
	PacedRate     float64           `json:"paced_rate,omitempty"`
	BrokerJVMOpts []string          `json:"broker_jvm_opts"`
	Arms          map[string]*Arm   `json:"arms"`
	Machine       coldstart.Machine `json:"machine"`
	Notes         []string          `json:"notes,omitempty"`
	Command       string            `json:"command,omitempty"`
	Smoke         bool              `json:"smoke,omitempty"`
	StartedAt     time.Time         `json:"started_at"`
	FinishedAt    time.Time         `json:"finished_at,omitzero"`
}

// LegacyModel is the harness's model of Kubernetes a study made before the test bed recorded, in
// seconds.
type LegacyModel struct {
	BrokerProbe  ProbeJSON `json:"broker_probe"`
	SidecarProbe ProbeJSON `json:"sidecar_probe"`
	PropagationS float64   `json:"propagation_s"`
	GraceS       float64   `json:"termination_grace_s"`
	PreStopS     float64   `json:"prestop_s"`
	MinReadyS    float64   `json:"min_ready_s"`
}

// ArmNames lists the study's arms in report order.
func (s *Study) ArmNames() []string {
	var names []string
	for a := range s.Arms {
		names = append(names, a)
	}
	return sortArms(names)
}

// summarise turns one event's trace and timeline into its Result.
func summarise(arm string, n int, kind string, tr *coldstart.Trace, events []Event, b Bounds) *Result {
	res := &Result{Arm: arm, N: n, Kind: kind, StartedAt: tr.Start.Add(b.Rollout.Start)}
	res.Steady = coldstart.Stats(tr, b.Steady)
	res.SteadyFailed, res.SteadyCancelled = res.Steady.Errors, res.Steady.Cancelled
	res.Rollout = coldstart.Stats(tr, b.Rollout)
	res.Queries, res.Failed, res.Cancelled = res.Rollout.Queries, res.Rollout.Errors, res.Rollout.Cancelled
	res.FailedRate, res.CancelledRate = res.Rollout.ErrorRate, res.Rollout.CancelRate
	segs := segments(events, tr.Start, b, tr.Timeout)
	res.ByPhase = phaseCounts(tr, segs, b)
	p99, at := worstP99(tr, b.Rollout)
	res.Worst10sP99Ms, res.Worst10sAtSeconds = p99, (at - b.Rollout.Start).Seconds()
	if res.Steady.P99Ms > 0 {
		res.Worst10sRatio = p99 / res.Steady.P99Ms
	}
	splitByCause(res, tr, events, b)
	res.WarmupCosts = warmupCosts(tr, events, busySpans(events, tr.Start, b.Rollout.End), b.Rollout, res.Steady.P99Ms)
	res.DurationSeconds = (b.Done - b.Rollout.Start).Seconds()
	res.Pods = podTimes(events, tr.Start, b)
	res.Seconds = perSecond(tr, b.Rollout.End)
	res.RolloutStartSeconds = b.Rollout.Start.Seconds()
	res.States = stateSpans(events, tr.Start, b.Rollout.End)
	res.BrokerRestarts = countKind(events, KindRestarted, tr.Start, b.Rollout)
	return res
}

// countKind is the number of events of kind within w of the load's clock (t0 its start).
func countKind(events []Event, kind Kind, t0 time.Time, w coldstart.Window) int {
	n := 0
	for _, e := range events {
		if at := e.At.Sub(t0); e.Kind == kind && at >= w.Start && at < w.End {
			n++
		}
	}
	return n
}
