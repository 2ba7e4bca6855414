package report

import (
	"github.com/warmup-sidecar/warmup-sidecar/pkg/prober"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/pkg/gatehttp"
)

// Status is the /status document. It never holds credentials: errors reaching it
// are built by pkg/pinot, which never puts header values into messages.
type Status struct {
	Phase  gatehttp.Phase `json:"phase"`
	Ready  bool           `json:"ready"`
	Reason string         `json:"reason"`
	// Decided says in one line what the sidecar decided and why (status_line.go).
	Decided         string `json:"decided"`
	Enabled         bool   `json:"enabled"`
	Run             int    `json:"run"`
	Outcome         string `json:"outcome,omitempty"`
	ProbesSucceeded int64  `json:"probes_succeeded"`
	ProbesFailed    int64  `json:"probes_failed"`
	NoScatterProbes int64  `json:"no_scatter_probes"`
	Floor           int    `json:"floor"`
	// MaxProbeRate is the runs' cap on queries a second; 0: none.
	MaxProbeRate float64 `json:"max_probe_rate"`
	// Exit is the exit rule (converged or floor); ExitReason says why the last
	// run ended as it did.
	Exit             string    `json:"exit"`
	ExitReason       string    `json:"exit_reason,omitempty"`
	BudgetSeconds    float64   `json:"budget_seconds"`
	BudgetLeftSecond float64   `json:"budget_left_seconds"`
	StartedAt        time.Time `json:"started_at,omitzero"`
	DurationSeconds  float64   `json:"duration_seconds,omitempty"`
	Tables           []string  `json:"tables"`
	Queries          []string  `json:"queries"`
	DroppedTables    []string  `json:"dropped_tables,omitempty"`
	DroppedQueries   []Dropped `json:"dropped_queries,omitempty"`
	UncoveredServers []string  `json:"uncovered_servers"`
	LastError        string    `json:"last_error,omitempty"`
	LastProbeMs      float64   `json:"last_probe_ms,omitempty"`
	// Medians of the first and the last LatencyWindow floor probes of the run.
	FirstProbesMedianMs float64 `json:"first_probes_median_ms,omitempty"`
	LastProbesMedianMs  float64 `json:"last_probes_median_ms,omitempty"`
	// Shapes is each probe shape's convergence; JIT the compile-rate signal,
	// absent without JVM metrics.
	Shapes []ShapeStatus `json:"shapes"`
	JIT    *JITStatus    `json:"jit,omitempty"`
	// MultiStage says whether the run probes the multi-stage engine, and what
	// the run found of it; ShapeFallbacks are legs kept on LIMIT 1, and why.
	MultiStage     *prober.Engine    `json:"multi_stage,omitempty"`
	ShapeFallbacks map[string]string `json:"shape_fallbacks,omitempty"`
	// Engines is each probed engine's progress toward its share of the floor,
	// keyed single_stage / multi_stage; absent before the plan.
	Engines map[string]EngineStatus `json:"engines,omitempty"`
	// BrokerAOTCache is what the broker JVM's AOT log said at its last start
	// (aotcache.go); absent without WARMUP_BROKER_AOT_LOG. It outlives runs.
	BrokerAOTCache *AOTCacheStatus `json:"broker_aot_cache,omitempty"`
	// BrokerCPUBoost is where the broker container's start-up CPU boost stands (cpuboost.go);
	// the binary always sets it (state off without WARMUP_CPU_BOOST_ENABLED). It outlives runs.
	BrokerCPUBoost *CPUBoostStatus `json:"broker_cpu_boost,omitempty"`

	// shapeOf is the plan's shape of each query, to name a dropped one's.
	shapeOf map[string]string
}

// LatencyWindow is how many probes the first/last medians cover.
const LatencyWindow = 50

// Dropped is a query the run stopped sending: a custom query or a generated
// shape's that the broker cannot compile, or that never succeeded.
type Dropped struct {
	// SQL is the query as sent.
	SQL string `json:"sql"`
	// Shape is the query's shape (custom_N for an operator's query).
	Shape string `json:"shape,omitempty"`
	// Reason is the broker's compile error, or the give-up rule's verdict with
	// the last error.
	Reason string `json:"reason"`
}

// StatusBoard holds the run's live figures behind a mutex.
type StatusBoard struct {
	mu       sync.Mutex
	s        Status
	deadline time.Time
	budget   time.Duration
	now      func() time.Time
	lat      latencyWindow
}

// NewStatusBoard makes an empty board; now is the clock.
func NewStatusBoard(enabled bool, floor int, budget time.Duration, now func() time.Time) *StatusBoard {
	return &StatusBoard{
		s:      Status{Enabled: enabled, Floor: floor, BudgetSeconds: budget.Seconds(), Tables: []string{}, Queries: []string{}, UncoveredServers: []string{}, Shapes: []ShapeStatus{}},
		budget: budget,
		now:    now,
		lat:    newLatencyWindow(LatencyWindow),
	}
}

// Update applies f to the status under the lock.
func (b *StatusBoard) Update(f func(*Status)) {
	b.mu.Lock()
	f(&b.s)
	b.mu.Unlock()
}

// StartRun resets the per-run figures; the budget counts down to deadline.
func (b *StatusBoard) StartRun(start, deadline time.Time) {
	b.mu.Lock()
	defer b.mu.Unlock()
	run := b.s.Run + 1
	b.s = Status{
		Enabled: b.s.Enabled, Floor: b.s.Floor, MaxProbeRate: b.s.MaxProbeRate, Exit: b.s.Exit, BudgetSeconds: b.s.BudgetSeconds, Run: run,
		StartedAt: start, Tables: []string{}, Queries: []string{}, UncoveredServers: []string{}, Shapes: []ShapeStatus{},
		BrokerAOTCache: b.s.BrokerAOTCache, BrokerCPUBoost: b.s.BrokerCPUBoost,
	}
	b.deadline = deadline
	b.lat = newLatencyWindow(LatencyWindow)
}

// ProbeLatency adds one floor probe's round trip to the first/last windows.
func (b *StatusBoard) ProbeLatency(d time.Duration) {
	b.mu.Lock()
	b.lat.add(d)
	b.s.FirstProbesMedianMs, b.s.LastProbesMedianMs = medianMs(b.lat.first), medianMs(b.lat.last)
	b.mu.Unlock()
}

// Snapshot copies the status, with the gate's view and the budget left.
func (b *StatusBoard) Snapshot(g *gatehttp.Gate) Status {
	b.mu.Lock()
	s := b.s
	// slices.Clone keeps an empty list empty: /status says [], not null.
	s.Tables = slices.Clone(b.s.Tables)
	s.Queries = slices.Clone(b.s.Queries)
	s.UncoveredServers = slices.Clone(b.s.UncoveredServers)
	s.DroppedTables = slices.Clone(b.s.DroppedTables)
	s.ShapeFallbacks = maps.Clone(b.s.ShapeFallbacks)
	s.Engines = enginesSnapshot(b.s.Engines)
	s.DroppedQueries = append([]Dropped(nil), b.s.DroppedQueries...)
	s.Shapes = append([]ShapeStatus{}, b.s.Shapes...)
	if b.s.JIT != nil {
		jit := *b.s.JIT
		s.JIT = &jit
	}
	if b.s.BrokerAOTCache != nil {
		aot := *b.s.BrokerAOTCache
		aot.Evidence = slices.Clone(aot.Evidence)
		s.BrokerAOTCache = &aot
	}
	if b.s.BrokerCPUBoost != nil {
		boost := *b.s.BrokerCPUBoost // Set stores a fresh copy each time: its pointers are not shared
		s.BrokerCPUBoost = &boost
	}
	deadline := b.deadline
	b.mu.Unlock()
	if s.Phase = g.Phase(); s.Phase == gatehttp.PhaseWarming && !deadline.IsZero() {
		s.BudgetLeftSecond = max(0, deadline.Sub(b.now()).Seconds())
	}
	s.Reason = g.Reason()
	s.Decided = s.decided()
	return s
}

// Document is what /status serves: a snapshot as g sees it, with the readiness
// verdict the handler reached, and the queries' literals (values sampled from
// the tables) masked (status_mask.go).
func (b *StatusBoard) Document(g *gatehttp.Gate) func(ready bool) any {
	return func(ready bool) any {
		s := b.Snapshot(g).withLiteralsMasked()
		s.Ready = ready
		return s
	}
}
