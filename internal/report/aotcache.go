package report

import (
	"context"
	"fmt"
	"log/slog"
	"slices"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/warmup-sidecar/warmup-sidecar/internal/aotlog"
)

// AOTCacheStatus is /status's broker_aot_cache: whether the broker this sidecar warms started
// with its JDK AOT cache, as the broker JVM's own -Xlog:aot file says.
type AOTCacheStatus struct {
	// State is used, rejected, absent, training, no_evidence, or unreadable.
	State string `json:"state"`
	// Evidence is up to aotlog.MaxEvidence of the log's lines behind State.
	Evidence []string `json:"evidence,omitempty"`
	// Error says why the log could not be read (State unreadable).
	Error string `json:"error,omitempty"`
}

// AOTUnreadable is the state of a log that could not be read: reported, never fatal.
const AOTUnreadable = "unreadable"

// AOTCacheReport reads the broker JVM's AOT log once per broker start and reports what it says
// in /status and in pinot_warmup_broker_aot_cache{state}. It never blocks the gate: a read
// error is a state like the others.
type AOTCacheReport struct {
	path  string
	read  func(path string) ([]byte, error)
	board *StatusBoard
	state *prometheus.GaugeVec
	log   *slog.Logger
}

// NewAOTCacheReport registers the state gauge on reg (one series per state, all 0 until the
// first broker start); read is os.ReadFile in the binary.
func NewAOTCacheReport(path string, read func(string) ([]byte, error), board *StatusBoard, reg prometheus.Registerer, log *slog.Logger) (*AOTCacheReport, error) {
	g := prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "pinot_warmup_broker_aot_cache",
		Help: "1 on what the broker JVM's AOT log said at its last start (used, rejected, absent, training, no_evidence, unreadable), 0 on the others.",
	}, []string{"state"})
	if err := reg.Register(g); err != nil {
		return nil, fmt.Errorf("registering pinot_warmup_broker_aot_cache: %w", err)
	}
	for _, s := range aotStates() {
		g.WithLabelValues(s).Set(0)
	}
	return &AOTCacheReport{path: path, read: read, board: board, state: g, log: log}, nil
}

func aotStates() []string { return append(slices.Clone(aotlog.States), AOTUnreadable) }

// BrokerStarted reads and reports the log of the broker that just turned healthy: the JVM
// writes its AOT lines at its start, and rotates the file then, so they are the current JVM's.
func (r *AOTCacheReport) BrokerStarted(ctx context.Context) {
	var st AOTCacheStatus
	b, err := r.read(r.path)
	if err != nil {
		st = AOTCacheStatus{State: AOTUnreadable, Error: fmt.Sprintf("reading the broker JVM's AOT log %s: %v", r.path, err)}
		r.log.Warn("broker AOT cache log unreadable", "error", st.Error)
	} else {
		u := aotlog.Classify(string(b))
		st = AOTCacheStatus{State: u.State, Evidence: u.Evidence}
		level := slog.LevelInfo
		if u.State != aotlog.Used && u.State != aotlog.Training {
			level = slog.LevelWarn
		}
		r.log.Log(ctx, level, "broker AOT cache", "state", u.State, "log", r.path, "evidence", u.Evidence)
	}
	for _, s := range aotStates() {
		v := 0.0
		if s == st.State {
			v = 1
		}
		r.state.WithLabelValues(s).Set(v)
	}
	r.board.Update(func(s *Status) { s.BrokerAOTCache = &st })
}
