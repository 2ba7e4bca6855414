package report

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// The broker CPU boost's states (internal/cpuboost), as /status and the gauge name them.
const (
	CPUBoostOff        = "off"
	CPUBoostBoosted    = "boosted"
	CPUBoostGivingBack = "giving_back"
	CPUBoostGivenBack  = "given_back"
	CPUBoostFailed     = "failed"
)

// CPUBoostStates lists every state, for the gauge's series.
var CPUBoostStates = []string{CPUBoostOff, CPUBoostBoosted, CPUBoostGivingBack, CPUBoostGivenBack, CPUBoostFailed}

// CPUBoostCPU is a container's CPU request and limit as quantities ("" when unset).
type CPUBoostCPU struct {
	Request string `json:"request,omitempty"`
	Limit   string `json:"limit,omitempty"`
}

// CPUBoostStatus is /status's broker_cpu_boost: where the broker container's start-up CPU
// boost stands, and why.
type CPUBoostStatus struct {
	State string    `json:"state"`
	Since time.Time `json:"since"`
	// Reason says why the boost is in State, in one line.
	Reason string `json:"reason"`
	// GiveBackBecause is what ended the boost (the evidence, or the maximum time).
	GiveBackBecause string `json:"give_back_because,omitempty"`
	// WaitingFor says, while boosted, what the give-back waits for.
	WaitingFor string `json:"waiting_for,omitempty"`
	Container  string `json:"container,omitempty"`
	// Target is the CPU given back to; Spec the pod's as last read; Applied what the kubelet
	// reports the running container has.
	Target       CPUBoostCPU  `json:"target,omitzero"`
	Spec         *CPUBoostCPU `json:"spec,omitempty"`
	Applied      *CPUBoostCPU `json:"applied,omitempty"`
	PodStartedAt time.Time    `json:"pod_started_at,omitzero"`
	// MaxUntil is when the maximum boost time ends.
	MaxUntil  time.Time `json:"max_until,omitzero"`
	Attempts  int       `json:"attempts,omitempty"`
	LastError string    `json:"last_error,omitempty"`
}

// CPUBoostReport publishes the boost's status: /status, pinot_warmup_broker_cpu_boost{state}
// (1 on the current state), and a log line when the state or its reason changes.
type CPUBoostReport struct {
	board *StatusBoard
	state *prometheus.GaugeVec
	log   *slog.Logger

	mu                    sync.Mutex
	lastState, lastReason string
}

// NewCPUBoostReport registers the state gauge on reg, every state 0 until the first Set.
func NewCPUBoostReport(board *StatusBoard, reg prometheus.Registerer, log *slog.Logger) (*CPUBoostReport, error) {
	g := prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "pinot_warmup_broker_cpu_boost",
		Help: "1 on the broker container's CPU boost state (off, boosted, giving_back, given_back, failed), 0 on the others.",
	}, []string{"state"})
	if err := reg.Register(g); err != nil {
		return nil, fmt.Errorf("registering pinot_warmup_broker_cpu_boost: %w", err)
	}
	for _, s := range CPUBoostStates {
		g.WithLabelValues(s).Set(0)
	}
	return &CPUBoostReport{board: board, state: g, log: log}, nil
}

// Set publishes st.
func (r *CPUBoostReport) Set(st CPUBoostStatus) {
	for _, s := range CPUBoostStates {
		v := 0.0
		if s == st.State {
			v = 1
		}
		r.state.WithLabelValues(s).Set(v)
	}
	cp := st
	if st.Spec != nil {
		spec := *st.Spec
		cp.Spec = &spec
	}
	if st.Applied != nil {
		applied := *st.Applied
		cp.Applied = &applied
	}
	r.board.Update(func(s *Status) { s.BrokerCPUBoost = &cp })

	r.mu.Lock()
	changed := st.State != r.lastState || st.Reason != r.lastReason
	r.lastState, r.lastReason = st.State, st.Reason
	r.mu.Unlock()
	if !changed || st.State == CPUBoostOff {
		return
	}
	level := slog.LevelInfo
	if st.State == CPUBoostFailed || st.LastError != "" {
		level = slog.LevelWarn
	}
	attrs := []any{"state", st.State, "reason", st.Reason}
	if st.GiveBackBecause != "" {
		attrs = append(attrs, "give_back_because", st.GiveBackBecause)
	}
	if st.LastError != "" {
		attrs = append(attrs, "error", st.LastError)
	}
	r.log.Log(context.Background(), level, "broker CPU boost", attrs...)
}
