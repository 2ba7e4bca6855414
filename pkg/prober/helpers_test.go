package prober

import (
	"sync"
	"testing"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/internal/fakepinot"
	"github.com/warmup-sidecar/warmup-sidecar/pkg/pinot"
)

// recorder is an Observer that keeps everything it hears.
type recorder struct {
	mu      sync.Mutex
	plans   []Plan
	retries []error
	events  []ProbeEvent
	dropped map[string]string
	windows []ShapeState
	jit     []JITState
	jitErrs []error
	warm    []engineWarm
	engines []Engine
	floors  [][2]int64 // multi-stage, single-stage

	jitFails []int // the streak of each failed JIT read
}

func (r *recorder) EngineFloors(multiStage, singleStage int64) {
	r.mu.Lock()
	r.floors = append(r.floors, [2]int64{multiStage, singleStage})
	r.mu.Unlock()
}

func (r *recorder) EngineFound(e Engine) {
	r.mu.Lock()
	r.engines = append(r.engines, e)
	r.mu.Unlock()
}

type engineWarm struct {
	multiStage bool
	lent       int
}

func (r *recorder) EngineWarm(multiStage bool, lent int) {
	r.mu.Lock()
	r.warm = append(r.warm, engineWarm{multiStage, lent})
	r.mu.Unlock()
}

func (r *recorder) ShapeWindow(s ShapeState) {
	r.mu.Lock()
	r.windows = append(r.windows, s)
	r.mu.Unlock()
}
func (r *recorder) JITRead(s JITState) { r.mu.Lock(); r.jit = append(r.jit, s); r.mu.Unlock() }
func (r *recorder) JITUnavailable(err error) {
	r.mu.Lock()
	r.jitErrs = append(r.jitErrs, err)
	r.mu.Unlock()
}

func (r *recorder) JITReadFailed(_ error, inARow int) {
	r.mu.Lock()
	r.jitFails = append(r.jitFails, inARow)
	r.mu.Unlock()
}

func (r *recorder) Planned(p Plan) { r.mu.Lock(); r.plans = append(r.plans, p); r.mu.Unlock() }
func (r *recorder) PlanRetry(err error) {
	r.mu.Lock()
	r.retries = append(r.retries, err)
	r.mu.Unlock()
}
func (r *recorder) Probed(e ProbeEvent) { r.mu.Lock(); r.events = append(r.events, e); r.mu.Unlock() }
func (r *recorder) QueryDropped(sql, reason string) {
	r.mu.Lock()
	if r.dropped == nil {
		r.dropped = map[string]string{}
	}
	r.dropped[sql] = reason
	r.mu.Unlock()
}

func (r *recorder) count(step string, class pinot.Class) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, e := range r.events {
		if e.Step == step && e.Result.Class == class {
			n++
		}
	}
	return n
}

// cluster starts the three-server fake and returns a prober over it. The fake
// plays a broker without the multi-stage engine and a controller without
// schemas, so these tests check the run's mechanics over the LIMIT 1 plan, one
// query per leg; plan_default_test.go plans over the fake's defaults.
func cluster(t *testing.T, s Settings) (*Prober, *fakepinot.Broker, *fakepinot.Controller, *recorder) {
	t.Helper()
	b := fakepinot.NewBroker(fakepinot.ThreeServers())
	c := fakepinot.NewController(fakepinot.ThreeServerTables()...)
	b.SetMultiStage(fakepinot.MultiStageAbsent)
	c.SetSchemaAnswer(fakepinot.SchemaNotFound)
	t.Cleanup(b.Close)
	t.Cleanup(c.Close)
	if s.Concurrency == 0 {
		s.Concurrency = 1
	}
	if s.MaxTables == 0 {
		s.MaxTables = 5
	}
	if s.ProbeTimeout == 0 {
		s.ProbeTimeout = time.Second
	}
	cl := pinot.New(pinot.Options{BrokerURL: b.URL(), ControllerURL: c.URL()})
	rec := &recorder{}
	return &Prober{Broker: cl, Planner: Planner{Catalog: cl, Settings: s}, Observer: rec}, b, c, rec
}
